// The ACD's sweep, a second after the last one ended: wrap-ups that ran out end, due callbacks are claimed, queues
// with callers here are tried again (seats that registered since), and every tenth sweep what dead processes left
// behind is put right (with several control planes, a peer may die any time). At start, callbacks and queue places
// a dead process left are put right first.
import type { Clock, TimerHandle } from '../clock.js';
import type { Logger } from 'pino';
import type { AcdRouter } from './routing.js';
import type { CallbackDialer } from './callback-dialer.js';

/** How often wrap-ups that ran out end, seats that registered since are tried, and dead callers are cleared. */
export const SWEEP_MS = 1_000;
const RECONCILE_EVERY = 10;

export interface SweepDeps {
  router: AcdRouter;
  callbacks: Pick<CallbackDialer, 'recover' | 'claimDue' | 'waitingQueues'>;
  clock: Clock;
  log: Logger;
  /** The queues with callers this process carries waiting in them. */
  waitingQueues(): number[];
  /** Whether this process carries the call. */
  live(callSid: string): boolean;
  /** Offers a queue's callers to its free agents; never rejects. */
  kick(queueId: number): Promise<void>;
  agentChanged(agentId: number): Promise<void>;
}

export class AcdSweeper {
  #timer: TimerHandle | null = null;
  #sweeps = 0;
  /** Set by stop(): a sweep still running then schedules no next one. */
  #stopped = false;

  constructor(private readonly d: SweepDeps) {}

  /** Puts right what a dead process left (errors are logged), then sweeps every second. */
  start(): void {
    void this.#reconcile().catch((err: unknown) => this.d.log.error({ err }, 'queue: start-up reconciliation failed'))
      .finally(() => this.#schedule());
  }

  stop(): void {
    this.#stopped = true;
    if (this.#timer) this.d.clock.clearTimeout(this.#timer);
    this.#timer = null;
  }

  /** The next sweep, a second after this one has finished (a slow database never piles sweeps up). */
  #schedule(): void {
    if (this.#stopped) return;
    this.#timer = this.d.clock.setTimeout(() => {
      void this.#sweepOnce().finally(() => this.#schedule());
    }, SWEEP_MS);
  }

  async #sweepOnce(): Promise<void> {
    const { router, callbacks } = this.d;
    try {
      for (const agentId of await router.endDueWrapUps()) await this.d.agentChanged(agentId);
      for (const q of await callbacks.claimDue()) await this.d.kick(q);
      if (++this.#sweeps % RECONCILE_EVERY === 0) await this.#reconcile();
      // Seats that registered since the last offer: the queues with callers here are tried again.
      for (const q of new Set([...this.d.waitingQueues(), ...callbacks.waitingQueues()])) await this.d.kick(q);
    } catch (err) {
      this.d.log.error({ err }, 'queue: sweep failed');
    }
  }

  async #reconcile(): Promise<void> {
    await this.d.callbacks.recover();
    for (const q of await this.d.router.reconcile((sid) => this.d.live(sid))) await this.d.kick(q);
  }
}
