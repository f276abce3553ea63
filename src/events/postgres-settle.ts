// OutboxStore.settle() on PostgreSQL as one statement: log the finished attempts, move their deliveries on, then
// lock, choose and lease the next due ones, and read them with their events and subscriptions. As separate
// statements in a transaction that was eight round trips to the server per batch, and the worker's batches run one
// at a time, so those waits bounded its rate (near 1,100 deliveries/s to one receiver). One statement is one round
// trip and one commit, atomic on its own.
//
// The sub-statements of a WITH all see the same snapshot and may not change one row twice, so the deliveries just
// finished are kept out of the candidates (a finished delivery whose lease ran out would otherwise be one). The
// candidates are locked and rows another worker's claim holds are passed over; the lock is on the delivery rows only
// (FOR UPDATE OF d), so a subscription's row stays free and the workers of several processes share its deliveries.
// Each subscription gets at most the room it has left (perSubscription less its attempts in flight), counted by
// row_number() over its candidates.
import type { SqlQueries } from '../store/sql.js';
import { toSubscription, type SubscriptionRow } from './subscriptions.js';
import { CLAIMABLE, LEASE_MARGIN_MS, toEvent, type ClaimedDelivery, type FinishedAttempt, type LeasedRow, type SubscriptionSlots } from './outbox-rows.js';

/** PostgreSQL's largest INTEGER, standing for "no bound" (claimDue's perSubscription is Infinity). */
const NO_BOUND = 2_147_483_647;

const SETTLE = `WITH finished AS (
    SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS TEXT[]), CAST(? AS BIGINT[]), CAST(? AS INTEGER[]), CAST(? AS TEXT[]), CAST(? AS INTEGER[]),
      CAST(? AS INTEGER[]), CAST(? AS TEXT[])) AS f(id, status, next_attempt_at, attempt, started_at, status_code, latency_ms, error)
  ), moved AS (
    UPDATE webhook_deliveries d SET attempt_count = d.attempt_count + 1, status = f.status, claimed_until = NULL,
      next_attempt_at = COALESCE(f.next_attempt_at, d.next_attempt_at), completed_at = CASE WHEN f.status = 'pending' THEN NULL ELSE CAST(? AS TEXT) END
    FROM finished f WHERE d.id = f.id RETURNING d.id
  ), logged AS (
    INSERT INTO webhook_delivery_attempts (delivery_id, attempt, started_at, status_code, latency_ms, error)
    SELECT f.id, f.attempt, f.started_at, f.status_code, f.latency_ms, f.error FROM finished f JOIN moved ON moved.id = f.id
  ), busy AS (
    SELECT * FROM unnest(CAST(? AS BIGINT[]), CAST(? AS INTEGER[])) AS b(subscription_id, active)
  ), candidates AS (
    SELECT d.id, d.subscription_id, d.next_attempt_at FROM webhook_deliveries d
    WHERE ${CLAIMABLE} AND d.id <> ALL (CAST(? AS BIGINT[]))
      AND NOT EXISTS (SELECT 1 FROM busy b WHERE b.subscription_id = d.subscription_id AND b.active >= CAST(? AS INTEGER))
    ORDER BY d.next_attempt_at, d.id LIMIT CAST(? AS INTEGER) FOR UPDATE OF d SKIP LOCKED
  ), chosen AS (
    SELECT ranked.id FROM (
      SELECT c.id, c.next_attempt_at, COALESCE(b.active, 0) + row_number() OVER (PARTITION BY c.subscription_id ORDER BY c.next_attempt_at, c.id) AS slot
      FROM candidates c LEFT JOIN busy b ON b.subscription_id = c.subscription_id
    ) ranked WHERE ranked.slot <= CAST(? AS INTEGER) ORDER BY ranked.next_attempt_at, ranked.id LIMIT CAST(? AS INTEGER)
  ), leased AS (
    UPDATE webhook_deliveries d SET claimed_until = CAST(? AS BIGINT) + s.timeout_ms
    FROM chosen, webhook_subscriptions s WHERE d.id = chosen.id AND s.id = d.subscription_id
    RETURNING d.id, d.sid, d.attempt_count, d.subscription_id, d.event_id, d.next_attempt_at, row_to_json(s) AS subscription
  )
  SELECT l.id, l.sid, l.attempt_count, l.subscription_id, l.subscription, e.sid AS event_sid, e.account_id, e.event_type, e.call_sid, e.occurred_at, e.data
  FROM leased l JOIN events e ON e.id = l.event_id ORDER BY l.next_attempt_at, l.id`;

/** See OutboxStore.settle(); `limit` 0 only logs. */
export async function settleOnPostgres(q: SqlQueries, finished: FinishedAttempt[], limit: number, slots: SubscriptionSlots, now: number, completedAt: string): Promise<ClaimedDelivery[]> {
  const perSubscription = Math.min(slots.perSubscription, NO_BOUND);
  const busy = [...slots.active];
  const ids = finished.map((f) => f.id);
  const rows = await q.all<LeasedRow & { subscription: SubscriptionRow }>(SETTLE, [
    ids, finished.map((f) => f.next.status), finished.map((f) => f.next.nextAttemptAt), finished.map((f) => f.record.attempt),
    finished.map((f) => f.record.startedAt), finished.map((f) => f.record.statusCode), finished.map((f) => Math.round(f.record.latencyMs)),
    finished.map((f) => f.record.error), completedAt,
    busy.map(([id]) => id), busy.map(([, n]) => n),
    now, now, ids, perSubscription, Math.max(0, limit) * 2,
    perSubscription, Math.max(0, limit),
    now + LEASE_MARGIN_MS,
  ]);
  return rows.map((r) => ({
    id: r.id, sid: r.sid, attempt: r.attempt_count + 1, event: toEvent({ ...r, sid: r.event_sid }), subscription: toSubscription(r.subscription),
  }));
}
