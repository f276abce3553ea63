// Delivered and exhausted webhook history would otherwise grow the database forever; it is kept for a retention
// period (the delivery log's useful life) and then pruned in the background.
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../clock.js';
import type { OutboxStore } from './outbox-store.js';

export const DEFAULT_RETENTION_DAYS = 30;
const DAY_MS = 86_400_000;
const PRUNE_EVERY_MS = 3_600_000;

export class OutboxRetention {
  #timer: TimerHandle | null = null;

  constructor(
    private readonly outbox: OutboxStore,
    private readonly clock: Clock,
    private readonly log: Logger,
    private readonly retentionDays = DEFAULT_RETENTION_DAYS,
  ) {}

  /** Prunes now, then every hour. */
  start(): void {
    this.prune();
    this.#timer = this.clock.setTimeout(() => this.start(), PRUNE_EVERY_MS);
  }

  stop(): void {
    if (this.#timer) this.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  prune(): { deliveries: number; events: number } {
    const removed = this.outbox.prune(this.clock.now() - this.retentionDays * DAY_MS);
    if (removed.deliveries + removed.events > 0) this.log.info(removed, 'pruned finished webhook history past retention');
    return removed;
  }
}
