// OutboxStore.enqueue on PostgreSQL: events written as one statement each batch (one round trip to the server; as
// separate statements in a transaction of their own, five). Emits outside a caller's transaction that arrive while a
// statement is at the server wait for it and go together in the next one, committed together: with many calls
// emitting at once, the server commits once per batch instead of once per event, and no emit waits longer than
// one statement for its turn. An emit inside a caller's transaction is written there, alone.
import type { SqlDb, SqlQueries } from '../store/sql.js';
import { outsideTransactions, refuseInside } from '../store/transaction-scope.js';
import type { Clock } from '../clock.js';
import { newSid } from '../crypto/tokens.js';
import type { LifecycleEvent } from './lifecycle.js';
import type { DeliveryMode } from './subscriptions.js';

export interface QueuedDelivery { id: number; mode: DeliveryMode; timeoutMs: number }
export interface QueuedEvent { eventSid: string; deliveries: QueuedDelivery[] }

/** One event as the statement reads it. */
interface EventInput {
  sid: string; account_id: number; event_type: string; call_sid: string | null; occurred_at: string; data: string;
  at: number; emitter_takes_sync: boolean;
}

interface Waiting { input: EventInput; resolve(q: QueuedEvent | null): void; reject(err: unknown): void }

/** Events per statement at most: the JSON parameter stays small, and the batch's commit comes soon. */
const MAX_BATCH = 100;

/**
 * Each event is recorded and queued for every active subscription to its account and type; an event nobody
 * listens to is not stored. The subscriptions are held (FOR KEY SHARE) until commit, so one deleted meanwhile
 * cannot fail the delivery insert's foreign key, and with it the caller's state change. A sync delivery whose
 * emitter attempts it itself is due only after the emitter's whole wait (OutboxStore's heldForEmitterUntil). The
 * delivery sids come from the server's strong random UUIDs, 122 random bits in the same 32 hex digits.
 */
const ENQUEUE = (leaseMarginMs: number) => `WITH input AS (
    SELECT * FROM json_to_recordset(CAST(? AS JSON)) AS i(sid TEXT, account_id BIGINT, event_type TEXT, call_sid TEXT,
      occurred_at TEXT, data TEXT, at BIGINT, emitter_takes_sync BOOLEAN)
  ), subs AS (
    SELECT s.id, s.account_id, s.event_type, s.delivery_mode, s.timeout_ms FROM webhook_subscriptions s
    WHERE (s.account_id, s.event_type) IN (SELECT account_id, event_type FROM input) AND s.status = 'active' FOR KEY SHARE OF s
  ), event AS (
    INSERT INTO events (sid, account_id, event_type, call_sid, occurred_at, data)
    SELECT i.sid, i.account_id, i.event_type, i.call_sid, i.occurred_at, i.data FROM input i
    WHERE EXISTS (SELECT 1 FROM subs WHERE subs.account_id = i.account_id AND subs.event_type = i.event_type)
    RETURNING id, sid
  ), queued AS (
    INSERT INTO webhook_deliveries (sid, event_id, subscription_id, status, next_attempt_at, created_at)
    SELECT 'DL' || replace(gen_random_uuid()::text, '-', ''), event.id, subs.id, 'pending',
      CASE WHEN i.emitter_takes_sync AND subs.delivery_mode = 'sync' THEN i.at + subs.timeout_ms + ${leaseMarginMs} ELSE i.at END, i.occurred_at
    FROM event JOIN input i ON i.sid = event.sid JOIN subs ON subs.account_id = i.account_id AND subs.event_type = i.event_type
    ORDER BY event.id, subs.id
    RETURNING id, event_id, subscription_id
  )
  SELECT event.sid AS event_sid, queued.id, subs.delivery_mode, subs.timeout_ms
  FROM queued JOIN event ON event.id = queued.event_id JOIN subs ON subs.id = queued.subscription_id
  ORDER BY queued.id`;

export class PostgresEnqueue {
  readonly #statement: string;
  readonly #waiting: Waiting[] = [];
  #writing = false;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, leaseMarginMs: number) {
    this.#statement = ENQUEUE(leaseMarginMs);
  }

  /** In `tx` when given (alone, in the caller's transaction); else batched with the emits around it. */
  enqueue(event: LifecycleEvent, tx: SqlQueries | undefined, emitterTakesSync: boolean): Promise<QueuedEvent | null> {
    const now = this.clock.now();
    const input: EventInput = {
      sid: newSid('EV'), account_id: event.accountId, event_type: event.type, call_sid: event.callSid,
      occurred_at: new Date(now).toISOString(), data: JSON.stringify(event.data), at: now, emitter_takes_sync: emitterTakesSync,
    };
    if (tx) return this.#write(tx, [input]).then(([queued]) => queued ?? null);
    // Refused here, for its caller alone, as the query itself would have been: the batch is written on behalf of
    // every emit in it, outside whichever caller's context started it.
    refuseInside(this.sql, 'an emit without its transaction');
    return new Promise((resolve, reject) => {
      this.#waiting.push({ input, resolve, reject });
      if (!this.#writing) outsideTransactions(() => void this.#writeWaiting());
    });
  }

  /** Writes what waits, a batch at a time, until nothing does; the first batch leaves at once. */
  async #writeWaiting(): Promise<void> {
    this.#writing = true;
    while (this.#waiting.length > 0) {
      const batch = this.#waiting.splice(0, MAX_BATCH);
      try {
        const queued = await this.#write(this.sql, batch.map((w) => w.input));
        batch.forEach((w, i) => w.resolve(queued[i] ?? null));
      } catch (err) {
        // One event the server refuses must not fail the others: alone, each gets its own answer.
        if (batch.length === 1) batch[0]!.reject(err);
        else for (const w of batch) await this.#write(this.sql, [w.input]).then(([q]) => w.resolve(q ?? null), w.reject);
      }
    }
    this.#writing = false;
  }

  /** The events' queued deliveries, in the order of `inputs`; null for an event nobody listens to. */
  async #write(q: SqlQueries, inputs: EventInput[]): Promise<Array<QueuedEvent | null>> {
    const rows = await q.all<{ event_sid: string; id: number; delivery_mode: DeliveryMode; timeout_ms: number }>(this.#statement, [JSON.stringify(inputs)]);
    const bySid = new Map<string, QueuedDelivery[]>();
    for (const r of rows) {
      const deliveries = bySid.get(r.event_sid) ?? [];
      deliveries.push({ id: r.id, mode: r.delivery_mode, timeoutMs: r.timeout_ms });
      bySid.set(r.event_sid, deliveries);
    }
    return inputs.map((i) => {
      const deliveries = bySid.get(i.sid);
      return deliveries ? { eventSid: i.sid, deliveries } : null;
    });
  }
}
