// Delivery workers: claim due outbox rows under a lease, POST them signed, record the attempt, schedule the
// retry. A crash between claim and record leaves the lease to expire, so the delivery is repeated, not lost.
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { OutboundError, type GuardedClient } from '../net/index.js';
import { openHeaders } from './subscription-headers.js';
import type { OrgSettingsRepo } from '../org/settings.js';
import { retryDelayMs } from './backoff.js';
import type { AttemptRecord, ClaimedDelivery, DeliveryStatus, OutboxStore } from './outbox-store.js';
import { deliveryBody, deliveryHeaders } from './payload.js';

export interface AttemptOutcome {
  deliveryId: number;
  deliverySid: string;
  subscriptionSid: string;
  eventSid: string;
  record: AttemptRecord;
  status: DeliveryStatus;
  nextAttemptAt: number | null;
}

export interface DeliveryWorkerDeps {
  outbox: OutboxStore;
  orgSettings: OrgSettingsRepo;
  client: GuardedClient;
  clock: Clock;
  secrets: SecretBox;
  log: Logger;
  /** Attempts in flight at once. */
  concurrency?: number;
  /** Longest sleep between looks at the outbox (another process may have queued work). */
  pollMs?: number;
  /** Jitter source, injectable so tests can pin the schedule. */
  random?: () => number;
}

export class DeliveryWorker {
  readonly #d: DeliveryWorkerDeps;
  readonly #concurrency: number;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #listeners = new Set<(o: AttemptOutcome) => void>();
  #running = false;
  #timer: TimerHandle | null = null;
  #wakeQueued = false;

  constructor(deps: DeliveryWorkerDeps) {
    this.#d = deps;
    this.#concurrency = deps.concurrency ?? 16;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.wake();
  }

  /** Stops claiming and waits for attempts in flight (each bounded by its timeout). */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) this.#d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    await Promise.allSettled([...this.#inFlight]);
  }

  /** Looks for work soon; deferred to a microtask so an emit inside a caller's transaction has committed. */
  wake(): void {
    if (this.#wakeQueued || !this.#running) return;
    this.#wakeQueued = true;
    queueMicrotask(() => {
      this.#wakeQueued = false;
      this.#pump();
    });
  }

  onAttempt(listener: (o: AttemptOutcome) => void): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** Attempts one delivery now, outside the queue; null when it is not claimable (held, finished, paused). */
  async deliverNow(deliveryId: number): Promise<AttemptOutcome | null> {
    if (!this.#running) return null;
    const claimed = this.#d.outbox.claim(deliveryId);
    return claimed ? this.#track(this.#attempt(claimed)) : null;
  }

  #pump(): void {
    if (!this.#running) return;
    const free = this.#concurrency - this.#inFlight.size;
    if (free > 0) {
      for (const claimed of this.#d.outbox.claimDue(free)) void this.#track(this.#attempt(claimed));
    }
    this.#schedule();
  }

  #schedule(): void {
    if (this.#timer) this.#d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    // With every slot busy, the next finishing attempt pumps again; no timer needed.
    if (!this.#running || this.#inFlight.size >= this.#concurrency) return;
    const now = this.#d.clock.now();
    const due = this.#d.outbox.nextDueAt();
    const wait = Math.min(this.#d.pollMs ?? 5_000, due === null ? Infinity : Math.max(0, due - now));
    this.#timer = this.#d.clock.setTimeout(() => { this.#timer = null; this.#pump(); }, wait);
  }

  #track<T>(p: Promise<T>): Promise<T> {
    this.#inFlight.add(p);
    void p.finally(() => {
      this.#inFlight.delete(p);
      this.wake();
    });
    return p;
  }

  async #attempt(c: ClaimedDelivery): Promise<AttemptOutcome> {
    const { clock, secrets, client, outbox, orgSettings } = this.#d;
    const startedAt = new Date(clock.now()).toISOString();
    const started = performance.now();
    let statusCode: number | null = null;
    let error: string | null = null;
    try {
      const secret = secrets.open(c.subscription.secretSealed);
      if (secret === null) throw new OutboundError('secret_unavailable', 'the signing secret cannot be decrypted (was the master key changed?)');
      const body = deliveryBody(c);
      const res = await client.request(c.subscription.targetUrl, {
        method: 'POST',
        body,
        headers: deliveryHeaders(c, openHeaders(c.subscription.headersSealed, secrets), secret, body, Math.floor(clock.now() / 1000)),
        timeoutMs: c.subscription.timeoutMs,
        // Checked again on every attempt: removing a host from the allow-list stops deliveries to it at once.
        allowHosts: orgSettings.get(c.subscription.accountId).webhookHosts,
      });
      statusCode = res.status;
      if (res.status < 200 || res.status > 299) error = `http_status: the receiver answered ${res.status}`;
    } catch (err) {
      error = err instanceof OutboundError ? `${err.code}: ${err.message}` : `internal: ${(err as Error).message}`;
      if (!(err instanceof OutboundError)) this.#d.log.error({ err, delivery: c.sid }, 'delivery attempt failed unexpectedly');
    }
    const record: AttemptRecord = { attempt: c.attempt, startedAt, statusCode, latencyMs: performance.now() - started, error };
    const next = this.#next(c, error === null);
    outbox.finishAttempt(c.id, record, next);
    const outcome: AttemptOutcome = {
      deliveryId: c.id, deliverySid: c.sid, subscriptionSid: c.subscription.sid, eventSid: c.event.sid, record, ...next,
    };
    for (const listener of this.#listeners) listener(outcome);
    return outcome;
  }

  /** max_retries counts retries after the first attempt: attempt n+1 is retry n. */
  #next(c: ClaimedDelivery, ok: boolean): { status: DeliveryStatus; nextAttemptAt: number | null } {
    if (ok) return { status: 'delivered', nextAttemptAt: null };
    if (c.attempt > c.subscription.maxRetries) return { status: 'exhausted', nextAttemptAt: null };
    return { status: 'pending', nextAttemptAt: this.#d.clock.now() + retryDelayMs(c.attempt, this.#d.random) };
  }
}
