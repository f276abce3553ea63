// Delivered and exhausted webhook history (and the callback outbox's, src/callbacks) would otherwise grow the
// database forever; it is kept for a retention period (the delivery log's useful life), then pruned in the background.
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../clock.js';

/** A store of finished history: forgets what finished before the cutoff and counts what it removed, by kind. */
export interface PrunableHistory<R extends Record<string, number>> {
  prune(cutoffMs: number): Promise<R>;
}

export const DEFAULT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export class OutboxRetention<R extends Record<string, number>> {
  #timer: TimerHandle | null = null;
  #pruning: Promise<unknown> | null = null;

  constructor(
    private readonly outbox: PrunableHistory<R>,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly retentionDays = DEFAULT_RETENTION_DAYS,
    /** Named in the log line. */
    private readonly what = 'webhook history',
  ) {}

  /** Prunes now, then every hour; a failed prune (database unreachable) is logged and tried at the next hour. */
  start(): void {
    const pruning = this.prune().catch((err: unknown) => this.log.error({ err }, `could not prune ${this.what}; trying again in an hour`))
      .finally(() => { if (this.#pruning === pruning) this.#pruning = null; });
    this.#pruning = pruning;
    this.#timer = this.clock.setTimeout(() => this.start(), PRUNE_EVERY_MS);
  }

  /** No more prunes; resolves once one under way has finished (before the store closes under it). */
  async stop(): Promise<void> {
    if (this.#timer) this.clock.clearTimeout(this.#timer);
    this.#timer = null;
    await this.#pruning;
  }

  async prune(): Promise<R> {
    const removed = await this.outbox.prune(this.clock.now() - this.retentionDays * DAY_MS);
    const counts: Record<string, number> = removed;
    if (Object.values(counts).some((n) => n > 0)) this.log.info(counts, `pruned finished ${this.what} past retention`);
    return removed;
  }
}
