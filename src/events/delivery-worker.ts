// Delivery workers: claim due outbox rows under a lease, POST them signed, record the attempt, schedule the
// retry. A crash between claim and record leaves the lease to expire, so the delivery is repeated, not lost.
import type { Logger } from 'pino';
import type { Clock, TimerHandle } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { OutboundError, type GuardedClient } from '../net/index.js';
import { openHeaders } from './subscription-headers.js';
import type { OrgSettingsRepo } from '../org/settings.js';
import { retryDelayMs } from './backoff.js';
import type { AttemptNext, AttemptRecord, ClaimedDelivery, DeliveryStatus, FinishedAttempt, OutboxStore } from './outbox-store.js';
import { deliveryBody, deliveryHeaders } from './payload.js';
import { OneAtATime } from './one-at-a-time.js';

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
  /** Attempts in flight at once to one subscription, so one slow receiver cannot hold every slot. */
  perSubscription?: number;
  /** Longest sleep between looks at the outbox (another process may have queued work). */
  pollMs?: number;
  /** Jitter source, injectable so tests can pin the schedule. */
  random?: () => number;
}

const GROUP_COMMIT_MS = 2;

interface Recording extends FinishedAttempt { done(err?: Error): void }

/**
 * Attempts run concurrently; what they leave to write is batched: finished attempts are logged together (see
 * #record), in one transaction with the claims that refill the freed slots. An attempt's outcome is announced once
 * it is logged.
 */
export class DeliveryWorker {
  readonly #d: DeliveryWorkerDeps;
  readonly #concurrency: number;
  readonly #perSubscription: number;
  readonly #inFlight = new Set<Promise<unknown>>();
  readonly #listeners = new Set<(o: AttemptOutcome) => void>();
  readonly #toRecord: Recording[] = [];
  /** Attempts started and not yet logged. */
  #active = 0;
  /**
   * Requests in flight per subscription id: what perSubscription bounds. A finished request frees its slot at once,
   * not when its attempt is logged: its delivery stays leased until then, so no worker takes it again meanwhile, and
   * the receiver is what the bound protects. (Counted until logged, a subscription's slots were held through two
   * settle transactions each, and on PostgreSQL that bounded one receiver's rate near 1,100 deliveries/s.)
   */
  readonly #activeBySubscription = new Map<number, number>();
  #running = false;
  #timer: TimerHandle | null = null;
  #pumpQueued = false;
  readonly #pumps = new OneAtATime(() => this.#pumpOnce(), (err) => this.#d.log.error({ err }, 'delivery worker failed; looking again at the next wake'));
  #groupTimer: ReturnType<typeof setTimeout> | null = null;

  constructor(deps: DeliveryWorkerDeps) {
    this.#d = deps;
    this.#concurrency = deps.concurrency ?? 32;
    this.#perSubscription = deps.perSubscription ?? 16;
  }

  start(): void {
    if (this.#running) return;
    this.#running = true;
    this.wake();
  }

  /** Stops claiming and waits for attempts in flight (each bounded by its timeout) to be logged. */
  async stop(): Promise<void> {
    this.#running = false;
    if (this.#timer) this.#d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    await Promise.allSettled([...this.#inFlight]);
    while (this.#pumpQueued) await new Promise((r) => setImmediate(r));
    await this.#pumps.idle();
  }

  /**
   * Looks for work on the next turn rather than at once: an emit inside a caller's transaction has committed by
   * then, and the attempts that finish in this turn are logged together.
   */
  wake(): void {
    if (this.#pumpQueued) return;
    this.#pumpQueued = true;
    setImmediate(() => {
      this.#pumpQueued = false;
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
    const claimed = await this.#d.outbox.claim(deliveryId);
    return claimed ? this.#start(claimed) : null;
  }

  #pump(): void {
    this.#pumps.run();
  }

  async #pumpOnce(): Promise<void> {
    const recorded = this.#toRecord.splice(0);
    this.#active -= recorded.length;
    const free = this.#running ? this.#concurrency - this.#active : 0;
    let claimed: ClaimedDelivery[] = [];
    if (recorded.length > 0 || free > 0) {
      try {
        claimed = await this.#d.outbox.settle(recorded, free, { active: this.#activeBySubscription, perSubscription: this.#perSubscription });
      } catch (err) {
        // Their leases run out and they are attempted again: at least once, never lost.
        this.#d.log.error({ err }, 'could not log delivery attempts');
        for (const r of recorded) r.done(err as Error);
        await this.#schedule();
        return;
      }
    }
    for (const r of recorded) r.done();
    for (const c of claimed) void this.#start(c);
    await this.#schedule();
  }

  async #schedule(): Promise<void> {
    if (this.#timer) this.#d.clock.clearTimeout(this.#timer);
    this.#timer = null;
    // With every slot busy, the next finishing attempt pumps again; no timer needed.
    if (!this.#running || this.#active >= this.#concurrency) return;
    // So does any attempt in flight, and soon: meanwhile only the poll is due (work another process queued). When
    // to look next is read from the outbox only when nothing is in flight: in a busy worker that read (a scan of the
    // pending rows) came after every batch, and the next batch waited for it.
    let due: number | null = null;
    try {
      due = this.#active > 0 ? null : await this.#d.outbox.nextDueAt();
    } catch (err) {
      this.#d.log.error({ err }, 'could not read when the next delivery is due; looking again at the next poll');
    }
    if (!this.#running) return;
    const wait = Math.min(this.#d.pollMs ?? 5_000, due === null ? Infinity : Math.max(0, due - this.#d.clock.now()));
    this.#timer = this.#d.clock.setTimeout(() => { this.#timer = null; this.#pump(); }, wait);
  }

  #start(c: ClaimedDelivery): Promise<AttemptOutcome> {
    this.#active++;
    this.#activeBySubscription.set(c.subscription.id, (this.#activeBySubscription.get(c.subscription.id) ?? 0) + 1);
    const p = this.#attempt(c);
    this.#inFlight.add(p);
    const settled = () => { this.#inFlight.delete(p); };
    p.then(settled, settled);
    return p;
  }

  #requestDone(subscriptionId: number): void {
    const n = (this.#activeBySubscription.get(subscriptionId) ?? 1) - 1;
    if (n > 0) this.#activeBySubscription.set(subscriptionId, n);
    else this.#activeBySubscription.delete(subscriptionId);
  }

  /** Resolves once the attempt is logged (by the next pump). */
  #record(finished: FinishedAttempt): Promise<void> {
    return new Promise((resolve, reject) => {
      this.#toRecord.push({ ...finished, done: (err) => (err ? reject(err) : resolve()) });
      // Group commit: the log is written once every attempt in flight has finished or 2 ms on, whichever is first,
      // so a busy worker writes one transaction per slot-full instead of one per attempt. A real timer, not the
      // clock's: this is about batching writes, not about when deliveries are due.
      if (this.#toRecord.length >= this.#active) this.wake();
      else this.#groupTimer ??= setTimeout(() => { this.#groupTimer = null; this.wake(); }, GROUP_COMMIT_MS);
    });
  }

  async #attempt(c: ClaimedDelivery): Promise<AttemptOutcome> {
    const { clock, secrets, client, orgSettings } = this.#d;
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
        allowHosts: (await orgSettings.get(c.subscription.accountId)).webhookHosts,
      });
      statusCode = res.status;
      if (res.status < 200 || res.status > 299) error = `http_status: the receiver answered ${res.status}`;
    } catch (err) {
      error = err instanceof OutboundError ? `${err.code}: ${err.message}` : `internal: ${(err as Error).message}`;
      if (!(err instanceof OutboundError)) this.#d.log.error({ err, delivery: c.sid }, 'delivery attempt failed unexpectedly');
    }
    this.#requestDone(c.subscription.id);
    const record: AttemptRecord = { attempt: c.attempt, startedAt, statusCode, latencyMs: performance.now() - started, error };
    const next = this.#next(c, error === null);
    await this.#record({ id: c.id, record, next });
    const outcome: AttemptOutcome = {
      deliveryId: c.id, deliverySid: c.sid, subscriptionSid: c.subscription.sid, eventSid: c.event.sid, record, ...next,
    };
    for (const listener of this.#listeners) listener(outcome);
    return outcome;
  }

  /** max_retries counts retries after the first attempt: attempt n+1 is retry n. */
  #next(c: ClaimedDelivery, ok: boolean): AttemptNext {
    if (ok) return { status: 'delivered', nextAttemptAt: null };
    if (c.attempt > c.subscription.maxRetries) return { status: 'exhausted', nextAttemptAt: null };
    return { status: 'pending', nextAttemptAt: this.#d.clock.now() + retryDelayMs(c.attempt, this.#d.random) };
  }
}
