// Delivers the callback outbox: claims due rows, sends each signed through the customer-HTTP client, records the
// outcome, schedules retries. At least once: a crash between claim and record leaves a lease that expires.
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../clock.js';
import type { CustomerHttp } from '../calls/customer-http.js';
import { retryDelayMs } from '../events/backoff.js';
import { OutboxRetention } from '../events/retention.js';
import { OneAtATime } from '../events/one-at-a-time.js';
import { redactUrl } from '../log-redaction.js';
import type { SqlQueries } from '../store/sql.js';
import type { CallbackStore, ClaimedCallback, QueuedCallback } from './store.js';

const CALLBACK_TIMEOUT_MS = 5_000;
/** Longer than an attempt can take, so only a dead process's lease runs out. */
const LEASE_MS = CALLBACK_TIMEOUT_MS + 2_000;
const CALLBACK_MAX_ATTEMPTS = 5;
const POLL_MS = 5_000;
const CONCURRENCY = 8;

export interface CallbackOutboxDeps { store: CallbackStore; http: Pick<CustomerHttp, 'send'>; clock: Clock; log: Logger; random?: () => number }

export class CallbackOutbox {
  readonly #inFlight = new Set<Promise<void>>();
  readonly #retention: OutboxRetention<{ callbacks: number }>;
  #running = false;
  #timer: TimerHandle | null = null;
  #wakeQueued = false;
  readonly #pumps = new OneAtATime(() => this.#pumpOnce(), (err) => this.d.log.error({ err }, 'callback outbox unreadable; trying again'));

  constructor(private readonly d: CallbackOutboxDeps) {
    this.#retention = new OutboxRetention(d.store, d.clock, d.log, undefined, 'callback history');
  }

  /**
   * Pass the `tx` of the transaction that made the change: the callback commits (or rolls back) with it, and the
   * worker looks for it once it is committed.
   */
  async enqueue(c: QueuedCallback, tx?: SqlQueries): Promise<string> {
    const sid = await this.d.store.enqueue(c, tx);
    if (tx) tx.afterCommit(() => this.wake());
    else this.wake();
    return sid;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.#retention.start();
    this.wake();
  }

  /** Stops claiming and waits for the attempts in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) this.d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    await this.#retention.stop();
    await Promise.allSettled([...this.#inFlight]);
    await this.#pumps.idle();
  }

  /** Deferred to a microtask, so the wakes of one turn make one look at the outbox. */
  wake(): void {
    if (this.#wakeQueued || !this.#running) return;
    this.#wakeQueued = true;
    queueMicrotask(() => {
      this.#wakeQueued = false;
      this.#pump();
    });
  }

  #pump(): void {
    this.#pumps.run();
  }

  async #pumpOnce(): Promise<void> {
    if (!this.#running) return;
    if (this.#timer) this.d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    let wait = POLL_MS;
    // A database error (locked by another writer, disk full, connection lost) must not kill the server from a
    // timer: log it and look again at the next poll; the rows stay in the table.
    try {
      const free = CONCURRENCY - this.#inFlight.size;
      if (free > 0) {
        for (const claimed of await this.d.store.claimDue(free, LEASE_MS)) {
          const p = this.#deliver(claimed)
            .catch((err: unknown) => this.d.log.error({ err, callback: claimed.sid }, 'callback outcome not recorded; the lease will expire and it is sent again'))
            .finally(() => { this.#inFlight.delete(p); this.wake(); });
          this.#inFlight.add(p);
        }
      }
      const due = await this.d.store.nextDueAt();
      if (due !== null) wait = Math.min(wait, Math.max(0, due - this.d.clock.now()));
    } catch (err) {
      this.d.log.error({ err }, 'callback outbox unreadable; trying again');
    }
    if (!this.#running) return;
    this.#timer = this.d.clock.setTimeout(() => { this.#timer = null; this.#pump(); }, wait);
  }

  async #deliver(c: ClaimedCallback): Promise<void> {
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const res = await this.d.http.send({ accountId: c.accountId, url: c.url, method: c.method, payload: { kind: 'form', body: c.fields }, timeoutMs: CALLBACK_TIMEOUT_MS });
      statusCode = res.status;
      if (res.status < 200 || res.status > 299) error = `the receiver answered ${res.status}`;
    } catch (err) {
      error = (err as Error).message;
    }
    const ok = error === null;
    const status = ok ? 'delivered' : c.attempt >= CALLBACK_MAX_ATTEMPTS ? 'exhausted' : 'pending';
    const nextAttemptAt = status === 'pending' ? this.d.clock.now() + retryDelayMs(c.attempt, this.d.random) : null;
    if (!ok) this.d.log.info({ callback: c.sid, url: redactUrl(c.url), attempt: c.attempt, error, status }, 'callback not delivered');
    await this.d.store.finish(c.id, { status, nextAttemptAt, statusCode, error });
  }
}
