// The durable outbox: an event row plus one delivery row per subscription, written synchronously (so a
// caller's own transaction can include them), then claimed by delivery workers under a lease.
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';
import { newSid } from '../crypto/tokens.js';
import type { EventType, LifecycleEvent } from './lifecycle.js';
import { sampleBody } from './template.js';
import { toSubscription, type DeliveryMode, type Subscription, type SubscriptionRow } from './subscriptions.js';

export interface StoredEvent {
  sid: string;
  type: EventType;
  accountId: number;
  callSid: string | null;
  occurredAt: string;
  data: Record<string, unknown>;
}

export interface QueuedDelivery { id: number; mode: DeliveryMode; timeoutMs: number }

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

interface EventRow { id: number; sid: string; account_id: number; event_type: EventType; call_sid: string | null; occurred_at: string; data: string }
interface DeliveryRow { id: number; sid: string; event_id: number; subscription_id: number; status: DeliveryStatus; attempt_count: number; next_attempt_at: number; created_at: string; completed_at: string | null }
interface AttemptRow { delivery_id: number; attempt: number; started_at: string; status_code: number | null; latency_ms: number; error: string | null }

const toEvent = (r: EventRow): StoredEvent => ({
  sid: r.sid, type: r.event_type, accountId: r.account_id, callSid: r.call_sid, occurredAt: r.occurred_at,
  data: JSON.parse(r.data) as Record<string, unknown>,
});

export class OutboxStore {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  /**
   * Records the event and queues it for every active subscription to its type. Nothing is stored when
   * nobody listens. Runs as a nested savepoint when the caller already holds a transaction.
   */
  enqueue(event: LifecycleEvent): { eventSid: string; deliveries: QueuedDelivery[] } | null {
    return this.db.transaction(() => {
      const subs = this.db.prepare("SELECT id, delivery_mode, timeout_ms FROM webhook_subscriptions WHERE account_id = ? AND event_type = ? AND status = 'active'")
        .all(event.accountId, event.type) as Array<{ id: number; delivery_mode: DeliveryMode; timeout_ms: number }>;
      if (subs.length === 0) return null;
      const now = this.clock.now();
      const iso = new Date(now).toISOString();
      const eventSid = newSid('EV');
      const info = this.db.prepare('INSERT INTO events (sid, account_id, event_type, call_sid, occurred_at, data) VALUES (?, ?, ?, ?, ?, ?)')
        .run(eventSid, event.accountId, event.type, event.callSid, iso, JSON.stringify(event.data));
      const insert = this.db.prepare("INSERT INTO webhook_deliveries (sid, event_id, subscription_id, status, next_attempt_at, created_at) VALUES (?, ?, ?, 'pending', ?, ?)");
      const deliveries = subs.map((s) => ({
        id: Number(insert.run(newSid('DL'), info.lastInsertRowid, s.id, now, iso).lastInsertRowid),
        mode: s.delivery_mode, timeoutMs: s.timeout_ms,
      }));
      return { eventSid, deliveries };
    })();
  }

  /**
   * Records a made-up event of the subscription's type and queues it for that subscription only, so a
   * receiver can be checked without a real call ("send a test event"): the documented sample data, marked
   * `data.test: true`, so a payload template renders as it will for real events.
   */
  enqueueTest(sub: Subscription): { eventSid: string; deliverySid: string } {
    return this.db.transaction(() => {
      const now = this.clock.now();
      const iso = new Date(now).toISOString();
      const eventSid = newSid('EV');
      const info = this.db.prepare('INSERT INTO events (sid, account_id, event_type, call_sid, occurred_at, data) VALUES (?, ?, ?, NULL, ?, ?)')
        .run(eventSid, sub.accountId, sub.eventType, iso, JSON.stringify({ ...sampleBody(sub.eventType).data as object, test: true }));
      return { eventSid, deliverySid: this.#queue(Number(info.lastInsertRowid), sub.id, now, iso) };
    })();
  }

  /**
   * Queues the event of one logged delivery again for the same subscription, as a new delivery with its own
   * attempts (the old one's log stays as it was). Null when the delivery is not that subscription's.
   */
  redeliver(subscriptionId: number, deliverySid: string): { deliverySid: string } | null {
    return this.db.transaction(() => {
      const eventId = this.db.prepare('SELECT event_id FROM webhook_deliveries WHERE sid = ? AND subscription_id = ?').pluck()
        .get(deliverySid, subscriptionId) as number | undefined;
      if (eventId === undefined) return null;
      const now = this.clock.now();
      return { deliverySid: this.#queue(eventId, subscriptionId, now, new Date(now).toISOString()) };
    })();
  }

  #queue(eventId: number, subscriptionId: number, now: number, iso: string): string {
    const sid = newSid('DL');
    this.db.prepare("INSERT INTO webhook_deliveries (sid, event_id, subscription_id, status, next_attempt_at, created_at) VALUES (?, ?, ?, 'pending', ?, ?)")
      .run(sid, eventId, subscriptionId, now, iso);
    return sid;
  }

  /** Leases up to `limit` due deliveries of active subscriptions, oldest due first. */
  claimDue(limit: number): ClaimedDelivery[] {
    return this.settle([], limit, { active: new Map(), perSubscription: Infinity });
  }

  /**
   * One transaction for a batch of the worker's work: logs the finished attempts, then leases up to `limit` due
   * deliveries, oldest due first, none that would bring a subscription past `perSubscription` attempts in flight.
   */
  settle(finished: FinishedAttempt[], limit: number, slots: SubscriptionSlots): ClaimedDelivery[] {
    return this.db.transaction(() => {
      for (const f of finished) this.#finish(f);
      if (limit <= 0) return [];
      const now = this.clock.now();
      const inFlight = new Map(slots.active);
      const full = [...inFlight].filter(([, n]) => n >= slots.perSubscription).map(([id]) => id);
      // Subscriptions with no room are left out in SQL; among the candidates (twice what is wanted) the others are
      // taken while they have room. A subscription that fills up mid-batch is left out by the next claim.
      const candidates = this.db.prepare(`SELECT d.id, d.subscription_id FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.status = 'pending' AND s.status = 'active' AND d.next_attempt_at <= ? AND (d.claimed_until IS NULL OR d.claimed_until <= ?)
          AND d.subscription_id NOT IN (SELECT value FROM json_each(?))
        ORDER BY d.next_attempt_at, d.id LIMIT ?`).raw().all(now, now, JSON.stringify(full), limit * 2) as [number, number][];
      const claimed: ClaimedDelivery[] = [];
      for (const [id, subscriptionId] of candidates) {
        const n = inFlight.get(subscriptionId) ?? 0;
        if (n >= slots.perSubscription) continue;
        inFlight.set(subscriptionId, n + 1);
        claimed.push(this.#lease(id, now)!);
        if (claimed.length === limit) break;
      }
      return claimed;
    }).immediate();
  }

  /** Leases one delivery if nobody holds it (a sync emit delivers its own row at once). */
  claim(id: number): ClaimedDelivery | null {
    return this.db.transaction(() => {
      const now = this.clock.now();
      const free = this.db.prepare(`SELECT 1 FROM webhook_deliveries d JOIN webhook_subscriptions s ON s.id = d.subscription_id
        WHERE d.id = ? AND d.status = 'pending' AND s.status = 'active' AND (d.claimed_until IS NULL OR d.claimed_until <= ?)`).get(id, now);
      return free ? this.#lease(id, now) : null;
    }).immediate();
  }

  #lease(id: number, now: number): ClaimedDelivery | null {
    const d = this.db.prepare('SELECT * FROM webhook_deliveries WHERE id = ?').get(id) as DeliveryRow | undefined;
    const s = d && this.db.prepare('SELECT * FROM webhook_subscriptions WHERE id = ?').get(d.subscription_id) as SubscriptionRow | undefined;
    const e = d && this.db.prepare('SELECT * FROM events WHERE id = ?').get(d.event_id) as EventRow | undefined;
    if (!d || !s || !e) return null;
    this.db.prepare('UPDATE webhook_deliveries SET claimed_until = ? WHERE id = ?').run(now + s.timeout_ms + LEASE_MARGIN_MS, id);
    return { id, sid: d.sid, attempt: d.attempt_count + 1, event: toEvent(e), subscription: toSubscription(s) };
  }

  /** Logs the attempt and moves the delivery on; a delivery deleted meanwhile (subscription gone) stays gone. */
  finishAttempt(id: number, record: AttemptRecord, next: AttemptNext): void {
    this.settle([{ id, record, next }], 0, { active: new Map(), perSubscription: 0 });
  }

  #finish({ id, record, next }: FinishedAttempt): void {
    const info = this.db.prepare(`UPDATE webhook_deliveries SET attempt_count = attempt_count + 1, status = ?, claimed_until = NULL,
      next_attempt_at = COALESCE(?, next_attempt_at), completed_at = ? WHERE id = ?`)
      .run(next.status, next.nextAttemptAt, next.status === 'pending' ? null : new Date(this.clock.now()).toISOString(), id);
    if (info.changes === 0) return;
    this.db.prepare('INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error) VALUES (?, ?, ?, ?, ?, ?)')
      .run(id, record.attempt, record.startedAt, record.statusCode, Math.round(record.latencyMs), record.error);
  }

  /** When the worker next has something to do: a retry coming due or a lease running out. */
  nextDueAt(): number | null {
    return this.db.prepare(`SELECT MIN(MAX(d.next_attempt_at, COALESCE(d.claimed_until, 0))) FROM webhook_deliveries d
      JOIN webhook_subscriptions s ON s.id = d.subscription_id WHERE d.status = 'pending' AND s.status = 'active'`).pluck().get() as number | null;
  }

  /**
   * Forgets finished history older than `cutoffMs`: delivered or exhausted deliveries (their attempts go with
   * them), then events with no delivery left. Pending deliveries are never touched, however old.
   */
  prune(cutoffMs: number): { deliveries: number; events: number } {
    const cutoff = new Date(cutoffMs).toISOString();
    return this.db.transaction(() => {
      const deliveries = this.db.prepare("DELETE FROM webhook_deliveries WHERE status IN ('delivered','exhausted') AND completed_at < ?").run(cutoff).changes;
      const events = this.db.prepare('DELETE FROM events WHERE occurred_at < ? AND NOT EXISTS (SELECT 1 FROM webhook_deliveries d WHERE d.event_id = events.id)')
        .run(cutoff).changes;
      return { deliveries, events };
    }).immediate();
  }

  /** The delivery log of one subscription, newest first, with every attempt. */
  listForSubscription(subscriptionId: number, page: { beforeId: number | null; limit: number }): DeliveryLogEntry[] {
    const rows = this.db.prepare(`SELECT d.*, e.sid AS event_sid, e.event_type FROM webhook_deliveries d JOIN events e ON e.id = d.event_id
      WHERE d.subscription_id = ? AND (? IS NULL OR d.id < ?) ORDER BY d.id DESC LIMIT ?`)
      .all(subscriptionId, page.beforeId, page.beforeId, page.limit) as Array<DeliveryRow & { event_sid: string; event_type: EventType }>;
    const attempts = this.db.prepare('SELECT * FROM webhook_delivery_attempts WHERE delivery_id = ? ORDER BY attempt, id');
    return rows.map((r) => ({
      id: r.id, sid: r.sid, eventSid: r.event_sid, eventType: r.event_type, status: r.status, attemptCount: r.attempt_count,
      nextAttemptAt: r.status === 'pending' ? new Date(r.next_attempt_at).toISOString() : null,
      createdAt: r.created_at, completedAt: r.completed_at,
      attempts: (attempts.all(r.id) as AttemptRow[]).map((a) => ({
        attempt: a.attempt, startedAt: a.started_at, statusCode: a.status_code, latencyMs: a.latency_ms, error: a.error,
      })),
    }));
  }
}
