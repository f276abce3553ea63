// Delivers the callback outbox: claims due rows, sends each signed through the customer-HTTP client, records the
// outcome, schedules retries. At least once: a crash between claim and record leaves a lease that expires.
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../clock.js';
import type { CustomerHttp } from '../calls/customer-http.js';
import { retryDelayMs } from '../events/backoff.js';
import type { CallbackStore, ClaimedCallback, QueuedCallback } from './store.js';

const TIMEOUT_MS = 5_000;
const LEASE_MS = TIMEOUT_MS + 2_000;
const MAX_ATTEMPTS = 5;
const POLL_MS = 5_000;
const CONCURRENCY = 8;

export interface CallbackOutboxDeps { store: CallbackStore; http: CustomerHttp; clock: Clock; log: Logger; random?: () => number }

export class CallbackOutbox {
  readonly #inFlight = new Set<Promise<void>>();
  #running = false;
  #timer: TimerHandle | null = null;
  #wakeQueued = false;

  constructor(private readonly d: CallbackOutboxDeps) {}

  /** Synchronous: call inside the transaction that made the change, so the callback commits with it. */
  enqueue(c: QueuedCallback): string {
    const sid = this.d.store.enqueue(c);
    this.wake();
    return sid;
  }

  start(): void {
    this.#running = true;
    this.wake();
  }

  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) this.d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Deferred to a microtask, so a row queued inside a transaction has committed when it is looked for. */
  wake(): void {
    if (this.#wakeQueued || !this.#running) return;
    this.#wakeQueued = true;
    queueMicrotask(() => {
      this.#wakeQueued = false;
      this.#pump();
    });
  }

  #pump(): void {
    if (!this.#running) return;
    const free = CONCURRENCY - this.#inFlight.size;
    if (free > 0) {
      for (const claimed of this.d.store.claimDue(free, LEASE_MS)) {
        const p = this.#deliver(claimed).finally(() => { this.#inFlight.delete(p); this.wake(); });
        this.#inFlight.add(p);
      }
    }
    if (this.#timer) this.d.clock.clearTimeout(this.#timer);
    const due = this.d.store.nextDueAt();
    const wait = Math.min(POLL_MS, due === null ? Infinity : Math.max(0, due - this.d.clock.now()));
    this.#timer = this.d.clock.setTimeout(() => { this.#timer = null; this.#pump(); }, wait);
  }

  async #deliver(c: ClaimedCallback): Promise<void> {
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await this.d.http.send({ accountId: c.accountId, url: c.url, method: c.method, payload: { kind: 'form', body: c.fields }, timeoutMs: TIMEOUT_MS });
      statusCode = res.status;
      if (res.status < 200 || res.status > 299) error = `the receiver answered ${res.status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    const ok = error === null;
    const status = ok ? 'delivered' : c.attempt >= MAX_ATTEMPTS ? 'exhausted' : 'pending';
    const nextAttemptAt = status === 'pending' ? this.d.clock.now() + retryDelayMs(c.attempt, this.d.random) : null;
    if (!ok) this.d.log.info({ callback: c.sid, url: c.url, attempt: c.attempt, error, status }, 'callback not delivered');
    this.d.store.finish(c.id, { status, nextAttemptAt, statusCode, error });
  }
}
