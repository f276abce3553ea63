// LifecycleEvents backed by the durable outbox: emit() writes synchronously and never waits for the network.
import type { Clock } from '../clock.js';
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

  /**
   * Synchronous on purpose: wrap your state change and this call in one `db.transaction` and either both
   * happen or neither. Throws if the outbox cannot be written, rather than losing the event quietly.
   */
  emit(event: LifecycleEvent): void {
    if (this.outbox.enqueue(event)) this.worker.wake();
  }

  async emitAndWait(event: LifecycleEvent): Promise<SyncResult> {
    const queued = this.outbox.enqueue(event);
    const sync = queued?.deliveries.find((d) => d.mode === 'sync');
    if (queued) this.worker.wake();
    if (!sync) return { waited: false, delivered: false, statusCode: null };
    let timer: ReturnType<Clock['setTimeout']> | undefined;
    const timedOut = new Promise<null>((resolve) => { timer = this.clock.setTimeout(() => resolve(null), sync.timeoutMs); });
    // Attempted right here rather than queued, so a live call never waits behind a backlog of other deliveries.
    const outcome = await Promise.race([this.worker.deliverNow(sync.id), timedOut]);
    if (timer) this.clock.clearTimeout(timer);
    return { waited: true, delivered: outcome?.status === 'delivered', statusCode: outcome?.record.statusCode ?? null };
  }
}
