// The durable outbox: an event row plus one delivery row per subscription, written in the caller's transaction
// when it has one (so the event exists exactly when its state change does), then claimed by delivery workers under
// a lease. Claims lock the rows they take (FOR UPDATE SKIP LOCKED on PostgreSQL), so workers of several processes
// sharing one database never take the same delivery, and never wait on each other.
import { rowLock, type SqlDb, type SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';
import { newSid } from '../crypto/tokens.js';
import type { EventType, LifecycleEvent } from './lifecycle.js';
import { sampleBody } from './template.js';
import { settleInOneStatement } from './outbox-settle-postgres.js';
import { PostgresEnqueue, type QueuedDelivery, type QueuedEvent } from './outbox-enqueue-postgres.js';
import { toSubscription, type DeliveryMode, type Subscription, type SubscriptionRow } from './subscriptions.js';

export interface StoredEvent {
  sid: string;
  type: EventType;
  accountId: number;
  callSid: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface ClaimedDelivery {
  id: number;
  sid: string;
  /** 1 for the first attempt; a redelivery after a crash repeats the number of the attempt that was lost. */
  attempt: number;
  event: StoredEvent;
  subscription: Subscription;
}

export type DeliveryStatus = 'pending' | 'delivered' | 'exhausted';

/** Where a delivery goes after an attempt: finished (delivered, exhausted) or pending until nextAttemptAt. */
export interface AttemptNext { status: DeliveryStatus; nextAttemptAt: number | null }

export interface FinishedAttempt { id: number; record: AttemptRecord; next: AttemptNext }

/** A worker's attempts in flight per subscription id, and how many one subscription may have. */
export interface SubscriptionSlots { active: ReadonlyMap<number, number>; perSubscription: number }

export interface AttemptRecord {
  attempt: number;
  startedAt: string;
  statusCode: number | null;
  latencyMs: number;
  error: string | null;
}

export interface DeliveryLogEntry {
  id: number;
  sid: string;
  eventSid: string;
  eventType: EventType;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: string | null;
  createdAt: string;
  completedAt: string | null;
  attempts: AttemptRecord[];
}

/** How long past its own timeout a claimed attempt stays reserved; after that, another worker may redeliver. */
export const LEASE_MARGIN_MS = 2_000;

interface EventRow { sid: string; account_id: number; event_type: EventType; call_sid: string | null; occurred_at: string; data: string }
interface DeliveryRow { id: number; sid: string; event_id: number; subscription_id: number; status: DeliveryStatus; attempt_count: number; next_attempt_at: number; created_at: string; completed_at: string | null }
/** A delivery with its event's columns (event_sid: the event's own sid), as a lease reads it. */
export interface LeasedRow extends Omit<EventRow, 'sid'> { id: number; sid: string; attempt_count: number; subscription_id: number; event_sid: string }
interface AttemptRow { delivery_id: number; attempt: number; started_at: string; status_code: number | null; latency_ms: number; error: string | null }

const toEvent = (r: EventRow): StoredEvent => ({
  sid: r.sid, type: r.event_type, accountId: r.account_id, callSid: r.call_sid, occurredAt: r.occurred_at,
  data: JSON.parse(r.data) as Record<string, unknown>,
});

const claimed = (r: LeasedRow, subscription: Subscription): ClaimedDelivery => ({
  id: r.id, sid: r.sid, attempt: r.attempt_count + 1, event: toEvent({ ...r, sid: r.event_sid }), subscription,
});

/** `n` placeholders for an IN list. */
const marks = (n: number) => Array.from({ length: n }, () => '?').join(', ');

/**
 * Pending, due, not leased, of an active subscription; `?`: now, now. The subscription is checked as "not among the
 * inactive ones" (a short list, read once), not joined: joined, the planner could start from the subscriptions and
 * lose the due index's order, reading every pending row.
 */
const CLAIMABLE = `d.status = 'pending' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
  AND d.subscription_id NOT IN (SELECT s.id FROM webhook_subscriptions s WHERE s.status <> 'active')`;

/**
 * When the worker may first take a sync delivery: after its emitter has had the whole wait (timeout_ms, then the
 * lease margin) to deliver it itself. Due at once, a worker woken by another emit claimed it first now and then,
 * and emitAndWait answered "not delivered" without waiting for the receiver. Should the emitter die, the worker
 * still delivers it then: at least once.
 */
function heldForEmitterUntil(now: number, timeoutMs: number): number {
  return now + timeoutMs + LEASE_MARGIN_MS;
}

export class OutboxStore {
  /** enqueue() on PostgreSQL (outbox-enqueue-postgres.ts). */
  readonly #postgres: PostgresEnqueue | null;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {
    this.#postgres = sql.dialect === 'postgres' ? new PostgresEnqueue(sql, clock, LEASE_MARGIN_MS) : null;
  }

  /**
   * Records the event and queues it for every active subscription to its type, in `tx` when the caller holds a
   * transaction (committed or rolled back with its state change), else in a transaction of its own. Nothing is
   * stored when nobody listens. `emitterTakesSync`: the caller attempts the sync deliveries itself (emitAndWait),
   * so they are held for it (see heldForEmitterUntil).
   */
  async enqueue(event: LifecycleEvent, tx?: SqlQueries, emitterTakesSync = false): Promise<QueuedEvent | null> {
    if (this.#postgres) return this.#postgres.enqueue(event, tx, emitterTakesSync);
    if (!tx) return this.sql.transaction((own) => this.enqueue(event, own, emitterTakesSync));
    // Kept from being deleted until the caller commits: a subscription deleted between this read and the delivery
    // insert would fail the insert's foreign key, and with it the caller's state change.
    const subs = await tx.all<{ id: number; delivery_mode: DeliveryMode; timeout_ms: number }>(
      `SELECT id, delivery_mode, timeout_ms FROM webhook_subscriptions WHERE account_id = ? AND event_type = ? AND status = 'active' ORDER BY id${rowLock(tx, { keyShare: true })}`,
      [event.accountId, event.type]);
    if (subs.length === 0) return null;
    const now = this.clock.now();
    const iso = new Date(now).toISOString();
    const eventSid = newSid('EV');
    const { id: eventId } = (await tx.one<{ id: number }>('INSERT INTO events (sid, account_id, event_type, call_sid, occurred_at, data) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
      [eventSid, event.accountId, event.type, event.callSid, iso, JSON.stringify(event.data)]))!;
    const deliveries: QueuedDelivery[] = [];
    for (const s of subs) {
      const dueAt = emitterTakesSync && s.delivery_mode === 'sync' ? heldForEmitterUntil(now, s.timeout_ms) : now;
      deliveries.push({ id: (await this.#queue(tx, eventId, s.id, dueAt, iso)).id, mode: s.delivery_mode, timeoutMs: s.timeout_ms });
    }
    return { eventSid, deliveries };
  }

  /**
   * Records a made-up event of the subscription's type and queues it for that subscription only, so a
   * receiver can be checked without a real call ("send a test event"): the documented sample data, marked
   * `data.test: true`, so a payload template renders as it will for real events.
   */
  async enqueueTest(sub: Subscription): Promise<{ eventSid: string; deliverySid: string }> {
    return this.sql.transaction(async (tx) => {
      const now = this.clock.now();
      const iso = new Date(now).toISOString();
      const eventSid = newSid('EV');
      const { id: eventId } = (await tx.one<{ id: number }>('INSERT INTO events (sid, account_id, event_type, call_sid, occurred_at, data) VALUES (?, ?, ?, NULL, ?, ?) RETURNING id',
        [eventSid, sub.accountId, sub.eventType, iso, JSON.stringify({ ...sampleBody(sub.eventType).data as object, test: true })]))!;
      return { eventSid, deliverySid: (await this.#queue(tx, eventId, sub.id, now, iso)).sid };
    });
  }

  /**
   * Queues the event of one logged delivery again for the same subscription, as a new delivery with its own
   * attempts (the old one's log stays as it was). Null when the delivery is not that subscription's.
   */
  async redeliver(subscriptionId: number, deliverySid: string): Promise<{ deliverySid: string } | null> {
    return this.sql.transaction(async (tx) => {
      const row = await tx.one<{ event_id: number }>('SELECT event_id FROM webhook_deliveries WHERE sid = ? AND subscription_id = ?', [deliverySid, subscriptionId]);
      if (row === undefined) return null;
      const now = this.clock.now();
      return { deliverySid: (await this.#queue(tx, row.event_id, subscriptionId, now, new Date(now).toISOString())).sid };
    });
  }

  async #queue(tx: SqlQueries, eventId: number, subscriptionId: number, dueAt: number, iso: string): Promise<{ id: number; sid: string }> {
    const sid = newSid('DL');
    const { id } = (await tx.one<{ id: number }>(`INSERT INTO webhook_deliveries (sid, event_id, subscription_id, status, next_attempt_at, created_at)
      VALUES (?, ?, ?, 'pending', ?, ?) RETURNING id`, [sid, eventId, subscriptionId, dueAt, iso]))!;
    return { id, sid };
  }

  /** Leases up to `limit` due deliveries of active subscriptions, oldest due first. */
  claimDue(limit: number): Promise<ClaimedDelivery[]> {
    return this.settle([], limit, { active: new Map(), perSubscription: Infinity });
  }

  /**
   * One transaction for a batch of the worker's work: logs the finished attempts, then leases up to `limit` due
   * deliveries, oldest due first, none that would bring a subscription past `perSubscription` attempts in flight.
   * A handful of statements per batch, not per delivery; on PostgreSQL, where each would be a round trip, one
   * (outbox-settle-postgres.ts). With nothing to log and nothing due (an idle outbox at the worker's poll) it is one
   * plain read and writes nothing.
   */
  async settle(finished: FinishedAttempt[], limit: number, slots: SubscriptionSlots): Promise<ClaimedDelivery[]> {
    if (this.sql.dialect === 'postgres') {
      if (finished.length === 0 && limit <= 0) return [];
      const rows = await settleInOneStatement(this.sql, CLAIMABLE, finished, limit, slots, this.clock.now(), LEASE_MARGIN_MS);
      return rows.map((r) => claimed(r, toSubscription(r.subscription)));
    }
    if (finished.length === 0) {
      if (limit <= 0) return [];
      const now = this.clock.now();
      if (!(await this.sql.one(`SELECT d.id FROM webhook_deliveries d WHERE ${CLAIMABLE} LIMIT 1`, [now, now]))) return [];
    }
    return this.sql.transaction(async (tx) => {
      await this.#finish(tx, finished);
      if (limit <= 0) return [];
      const now = this.clock.now();
      const inFlight = new Map(slots.active);
      const full = [...inFlight].filter(([, n]) => n >= slots.perSubscription).map(([id]) => id);
      // Subscriptions with no room are left out in SQL; among the candidates (twice what is wanted) the others are
      // taken while they have room. A subscription that fills up mid-batch is left out by the next claim. The
      // candidates are locked, and rows another worker's claim holds are passed over (the lock is on the delivery
      // rows only: a subscription's row stays free, so workers share its deliveries).
      const notFull = full.length === 0 ? '' : `AND d.subscription_id NOT IN (${marks(full.length)})`;
      const candidates = await tx.all<{ id: number; subscription_id: number }>(`SELECT d.id, d.subscription_id FROM webhook_deliveries d
        WHERE ${CLAIMABLE} ${notFull} ORDER BY d.next_attempt_at, d.id LIMIT ?${rowLock(tx, { skipLocked: true })}`, [now, now, ...full, limit * 2]);
      const chosen: number[] = [];
      for (const { id, subscription_id: subscriptionId } of candidates) {
        const n = inFlight.get(subscriptionId) ?? 0;
        if (n >= slots.perSubscription) continue;
        inFlight.set(subscriptionId, n + 1);
        chosen.push(id);
        if (chosen.length === limit) break;
      }
      return this.#lease(tx, chosen, now);
    });
  }

  /**
   * Leases one delivery if no worker holds it, due or not: a sync emit delivers its own row at once, a row that
   * enqueue() made due only after the emitter's wait (see heldForEmitterUntil).
   */
  async claim(id: number): Promise<ClaimedDelivery | null> {
    return this.sql.transaction(async (tx) => {
      const now = this.clock.now();
      const free = await tx.one(`SELECT d.id FROM webhook_deliveries d WHERE d.id = ? AND ${CLAIMABLE}${rowLock(tx, { skipLocked: true })}`, [id, Number.MAX_SAFE_INTEGER, now]);
      return free ? (await this.#lease(tx, [id], now))[0] ?? null : null;
    });
  }

  /** Call with the deliveries' rows locked (claimed above); in the order of `ids`. */
  async #lease(tx: SqlQueries, ids: number[], now: number): Promise<ClaimedDelivery[]> {
    if (ids.length === 0) return [];
    await tx.run(`UPDATE webhook_deliveries SET claimed_until = ? + (SELECT s.timeout_ms FROM webhook_subscriptions s WHERE s.id = webhook_deliveries.subscription_id)
      WHERE id IN (${marks(ids.length)})`, [now + LEASE_MARGIN_MS, ...ids]);
    const rows = await tx.all<LeasedRow>(`SELECT d.id, d.sid, d.attempt_count, d.subscription_id, e.sid AS event_sid, e.account_id, e.event_type, e.call_sid,
      e.occurred_at, e.data FROM webhook_deliveries d JOIN events e ON e.id = d.event_id WHERE d.id IN (${marks(ids.length)})`, ids);
    const subscriptionIds = [...new Set(rows.map((r) => r.subscription_id))];
    const subscriptions = new Map((await tx.all<SubscriptionRow>(`SELECT * FROM webhook_subscriptions WHERE id IN (${marks(subscriptionIds.length)})`, subscriptionIds))
      .map((s) => [s.id, toSubscription(s)]));
    const byId = new Map(rows.map((r) => [r.id, r]));
    return ids.flatMap((id) => {
      const r = byId.get(id);
      const subscription = r && subscriptions.get(r.subscription_id);
      return r && subscription ? [claimed(r, subscription)] : [];
    });
  }

  /** Logs the attempt and moves the delivery on; a delivery deleted meanwhile (subscription gone) stays gone. */
  async finishAttempt(id: number, record: AttemptRecord, next: AttemptNext): Promise<void> {
    await this.settle([{ id, record, next }], 0, { active: new Map(), perSubscription: 0 });
  }

  /**
   * Moves the deliveries on and logs their attempts: the delivered ones (most) in one update, the others one by one
   * (each has its own next time); then one insert of the attempts of the deliveries still there.
   */
  async #finish(tx: SqlQueries, finished: FinishedAttempt[]): Promise<void> {
    if (finished.length === 0) return;
    const completedAt = new Date(this.clock.now()).toISOString();
    const kept = new Set<number>();
    const delivered = finished.filter((f) => f.next.status === 'delivered').map((f) => f.id);
    if (delivered.length > 0) {
      const updated = await tx.all<{ id: number }>(`UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, status = 'delivered', claimed_until = NULL,
        completed_at = ? WHERE id IN (${marks(delivered.length)}) RETURNING id`, [completedAt, ...delivered]);
      for (const { id } of updated) kept.add(id);
    }
    for (const { id, next } of finished.filter((f) => f.next.status !== 'delivered')) {
      const info = await tx.run(`UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, status = ?, claimed_until = NULL,
        next_attempt_at = COALESCE(?, next_attempt_at), completed_at = ? WHERE id = ?`, [next.status, next.nextAttemptAt, next.status === 'pending' ? null : completedAt, id]);
      if (info.changes > 0) kept.add(id);
    }
    const logged = finished.filter((f) => kept.has(f.id));
    if (logged.length === 0) return;
    await tx.run(`INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
      VALUES ${logged.map(() => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
    logged.flatMap(({ id, record }) => [id, record.attempt, record.startedAt, record.statusCode, Math.round(record.latencyMs), record.error]));
  }

  /** When the worker next has something to do: a retry coming due or a lease running out. */
  async nextDueAt(): Promise<number | null> {
    const row = await this.sql.one<{ at: number | null }>(`SELECT MIN(CASE WHEN COALESCE(d.claimed_until, 0) > d.next_attempt_at THEN d.claimed_until ELSE d.next_attempt_at END) AS at
      FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.status = 'pending' AND s.status = 'active'`);
    return row?.at ?? null;
  }

  /**
   * Forgets finished history older than `cutoffMs`: delivered or exhausted deliveries (their attempts go with
   * them), then events with no delivery left. Pending deliveries are never touched, however old.
   */
  async prune(cutoffMs: number): Promise<{ deliveries: number; events: number }> {
    const cutoff = new Date(cutoffMs).toISOString();
    return this.sql.transaction(async (tx) => {
      const deliveries = (await tx.run("DELETE FROM webhook_deliveries WHERE status IN ('delivered','exhausted') AND completed_at < ?", [cutoff])).changes;
      const events = (await tx.run('DELETE FROM events WHERE occurred_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)',
        [cutoff])).changes;
      return { deliveries, events };
    });
  }

  /** The delivery log of one subscription, newest first, with every attempt. */
  async listForSubscription(subscriptionId: number, page: { beforeId: number | null; limit: number }): Promise<DeliveryLogEntry[]> {
    const rows = await this.sql.all<DeliveryRow & { event_sid: string; event_type: EventType }>(`SELECT d.*, e.sid AS event_sid, e.event_type FROM webhook_deliveries d
      JOIN events e ON e.id = d.event_id WHERE d.subscription_id = ? AND (CAST(? AS BIGINT) IS NULL OR d.id < ?) ORDER BY d.id DESC LIMIT ?`,
    [subscriptionId, page.beforeId, page.beforeId, page.limit]);
    const entries: DeliveryLogEntry[] = [];
    for (const r of rows) {
      const attempts = await this.sql.all<AttemptRow>('SELECT * FROM webhook_delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id', [r.id]);
      entries.push({
        id: r.id, sid: r.sid, eventSid: r.event_sid, eventType: r.event_type, status: r.status, attemptCount: r.attempt_count,
        nextAttemptAt: r.status === 'pending' ? new Date(r.next_attempt_at).toISOString() : null,
        createdAt: r.created_at, completedAt: r.completed_at,
        attempts: attempts.map((a) => ({
          attempt: a.attempt, startedAt: a.started_at, statusCode: a.status_code, latencyMs: a.latency_ms, error: a.error,
        })),
      });
    }
    return entries;
  }
}
