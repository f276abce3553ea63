// LifecycleEvents backed by the durable outbox: emit() writes the event (in the caller's transaction when given one)
// and never waits for the network; the delivery worker is woken once the event is committed.
import type { Clock } from '../clock.js';
import type { SqlQueries } from '../store/sql.js';
import type { LifecycleEvent, LifecycleEvents } from './lifecycle.js';
import type { OutboxStore } from './outbox-store.js';
import type { DeliveryWorker } from './delivery-worker.js';

export interface SyncResult {
  /** False when the event type has no active sync subscription (nothing to wait for). */
  waited: boolean;
  /** A 2xx arrived within the subscription's timeout_ms. */
  delivered: boolean;
  statusCode: number | null;
}

export interface EventOutbox extends LifecycleEvents {
  /** Like emit; then, for a `sync` subscription, resolves at its 2xx, its failed attempt or its timeout_ms. */
  emitAndWait(event: LifecycleEvent): Promise<SyncResult>;
}

export class DurableEvents implements EventOutbox {
  constructor(
    private readonly outbox: OutboxStore,
    private readonly worker: DeliveryWorker,
    private readonly clock: Clock,
  ) {}

  async emit(event: LifecycleEvent, tx?: SqlQueries): Promise<void> {
    await this.#write(event, tx);
  }

  /** Not inside a transaction: it waits for the receiver. */
  async emitAndWait(event: LifecycleEvent): Promise<SyncResult> {
    const queued = await this.#write(event, undefined, true);
    const sync = queued?.deliveries.find((d) => d.mode === 'sync');
    if (!sync) return { waited: false, delivered: false, statusCode: null };
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timedOut = new Promise<null>((resolve) => { timer = this.clock.setTimeout(() => resolve(null), sync.timeoutMs); });
    // Attempted right here rather than queued, so a live call never waits behind a backlog of other deliveries.
    const outcome = await Promise.race([this.worker.deliverNow(sync.id), timedOut]);
    if (timer) this.clock.clearTimeout(timer);
    return { waited: true, delivered: outcome?.status === 'delivered', statusCode: outcome?.record.statusCode ?? null };
  }

  /** The worker looks for the rows once they are committed: before that, a claim in another transaction cannot see them. */
  async #write(event: LifecycleEvent, tx?: SqlQueries, emitterTakesSync = false): ReturnType<OutboxStore['enqueue']> {
    const queued = await this.outbox.enqueue(event, tx, emitterTakesSync);
    if (!queued) return null;
    if (tx) tx.afterCommit(() => this.worker.wake());
    else this.worker.wake();
    return queued;
  }
}
