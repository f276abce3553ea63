// OutboxStore.settle on PostgreSQL: logging a batch of finished attempts and leasing the next deliveries, as one
// statement. As a transaction of separate statements it was nine round trips to the server per batch (BEGIN, two
// to log, three to claim and lease, two to read, COMMIT); a busy worker settles a batch per attempt or two, and
// that wait bounded its rate near 1,000 deliveries/s. One statement is atomic on its own.
import type { SqlQueries } from '../store/sql.js';
import type { FinishedAttempt, LeasedRow, SubscriptionSlots } from './outbox-store.js';
import type { SubscriptionRow } from './subscriptions.js';

/** What a leased row comes back as: the delivery, its event's columns and its subscription's row. */
export interface LeasedWithSubscription extends LeasedRow { subscription: SubscriptionRow }

/**
 * Each finished attempt moves its delivery on (delivered and exhausted ones complete; pending ones get their next
 * time) and is logged, for deliveries still there (a deleted subscription takes its deliveries with it). Then, as
 * the transaction did: the claimable rows, oldest due first, twice the limit, locked with SKIP LOCKED (another
 * worker's claim is passed over, never waited on), none of a full subscription's nor one just finished here (this
 * statement's snapshot still shows it pending); of those, each subscription's first ones while it has room; leased.
 * Statements in one WITH see one snapshot, so the two updates touch different rows by construction.
 */
export const SETTLE = (claimable: string) => `WITH finished AS (
    SELECT * FROM json_to_recordset(CAST(? AS JSON)) AS f(id BIGINT, attempt BIGINT, status TEXT, next_attempt_at BIGINT,
      started_at TEXT, status_code BIGINT, latency_ms BIGINT, error TEXT)
  ), moved AS (
    UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, status = f.status, claimed_until = NULL,
      next_attempt_at = COALESCE(f.next_attempt_at, d.next_attempt_at),
      completed_at = CASE WHEN f.status = 'pending' THEN NULL ELSE CAST(? AS TEXT) END
    FROM finished f WHERE d.id = ANY(CAST(? AS BIGINT[])) AND d.id = f.id RETURNING d.id
  ), logged AS (
    INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
    SELECT f.id, f.attempt, f.started_at, f.status_code, f.latency_ms, f.error FROM finished f JOIN moved ON moved.id = f.id
  ), slots AS (
    SELECT * FROM json_to_recordset(CAST(? AS JSON)) AS a(subscription_id BIGINT, n BIGINT)
  ), locked AS (
    SELECT d.id, d.subscription_id, d.next_attempt_at FROM webhook_deliveries d
    WHERE ${claimable} AND d.id NOT IN (SELECT id FROM finished)
      AND d.subscription_id NOT IN (SELECT subscription_id FROM slots WHERE n >= CAST(? AS BIGINT))
    ORDER BY d.next_attempt_at, d.id LIMIT CAST(? AS BIGINT) FOR UPDATE SKIP LOCKED
  ), chosen AS (
    SELECT r.id FROM (
      SELECT l.*, row_number() OVER (PARTITION BY l.subscription_id ORDER BY l.next_attempt_at, l.id) AS place FROM locked l
    ) r LEFT JOIN slots ON slots.subscription_id = r.subscription_id
    WHERE r.place + COALESCE(slots.n, 0) <= CAST(? AS BIGINT)
    ORDER BY r.next_attempt_at, r.id LIMIT CAST(? AS BIGINT)
  ), leased AS (
    UPDATE webhook_deliveries d SET claimed_until = CAST(? AS BIGINT) + s.timeout_ms FROM chosen, webhook_subscriptions s
    WHERE d.id = chosen.id AND s.id = d.subscription_id
    RETURNING d.id, d.sid, d.attempt_count, d.subscription_id, d.event_id, d.next_attempt_at
  )
  SELECT leased.id, leased.sid, leased.attempt_count, leased.subscription_id, e.sid AS event_sid, e.account_id, e.event_type,
    e.call_sid, e.occurred_at, e.data, row_to_json(s) AS subscription
  FROM leased JOIN events e ON e.id = leased.event_id JOIN webhook_subscriptions s ON s.id = leased.subscription_id
  ORDER BY leased.next_attempt_at, leased.id`;

// The finished ids also go as an array literal: matched by `= ANY` the planner looks them up by key, where joined
// with the JSON rows (estimated at 100) it scanned the whole table, finished history included.

/** JSON has no Infinity: an unbounded subscription is bounded by a count no worker reaches. */
const UNBOUNDED = Number.MAX_SAFE_INTEGER;

export async function settleInOneStatement(q: SqlQueries, claimable: string, finished: FinishedAttempt[], limit: number,
  slots: SubscriptionSlots, now: number, leaseMarginMs: number): Promise<LeasedWithSubscription[]> {
  const perSubscription = Number.isFinite(slots.perSubscription) ? slots.perSubscription : UNBOUNDED;
  const take = Math.max(0, limit);
  return q.all<LeasedWithSubscription>(SETTLE(claimable), [
    JSON.stringify(finished.map(({ id, record, next }) => ({
      id, attempt: record.attempt, status: next.status, next_attempt_at: next.nextAttemptAt, started_at: record.startedAt,
      status_code: record.statusCode, latency_ms: Math.round(record.latencyMs), error: record.error,
    }))),
    new Date(now).toISOString(), `{${finished.map((f) => f.id).join(',')}}`,
    JSON.stringify([...slots.active].map(([subscriptionId, n]) => ({ subscription_id: subscriptionId, n }))),
    now, now, perSubscription, take * 2, perSubscription, take, now + leaseMarginMs,
  ]);
}
