// The callback outbox: per-resource status callbacks (conference events now) written in the same transaction as
// the change that caused them, then claimed under a lease by the worker. Rows of one stream (one conference) go
// out in order: a row waits while an earlier row of its stream is still pending. Claims lock the rows they take
// (FOR UPDATE SKIP LOCKED on PostgreSQL), so workers of several processes never lease one row twice.
import { rowLock, type SqlDb, type SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';
import { newSid } from '../crypto/tokens.js';

export interface QueuedCallback {
  accountId: number;
  /** Ordering key: callbacks of one stream are delivered one after the other, in the order queued. */
  stream: string;
  url: string;
  method: 'POST' | 'GET';
  fields: Record<string, string>;
}

export interface ClaimedCallback extends QueuedCallback { id: number; sid: string; attempt: number }

export type CallbackStatus = 'pending' | 'delivered' | 'exhausted';

interface Row {
  id: number; sid: string; account_id: number; stream: string; url: string; method: 'POST' | 'GET'; fields: string; attempt_count: number;
}

/** Pending, with nothing earlier pending in its stream (the ordering rule). */
const HEAD_OF_STREAM = `c.status = 'pending'
  AND NOT EXISTS (SELECT 1 FROM callback_outbox e WHERE e.stream = c.stream AND e.id < c.id AND e.status = 'pending')`;

/** Heads of their streams due at the first `?` whose lease ended by the second. */
const CLAIMABLE = `${HEAD_OF_STREAM} AND c.next_attempt_at <= ? AND c.lease_until <= ?`;

/** When a claimable row is next due: its retry time or its lease's end, whichever is later. */
const DUE_AT = 'CASE WHEN c.lease_until > c.next_attempt_at THEN c.lease_until ELSE c.next_attempt_at END';

export class CallbackStore {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** In `q`, the transaction that made the change, so the callback exists exactly when the change does. */
  async enqueue(c: QueuedCallback, q: SqlQueries = this.sql): Promise<string> {
    const sid = newSid('CB');
    const now = this.clock.now();
    await q.run(`INSERT INTO callback_outbox (sid, account_id, stream, url, method, fields, status, attempt_count, next_attempt_at, lease_until, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, 0, ?)`,
    [sid, c.accountId, c.stream, c.url, c.method, JSON.stringify(c.fields), now, new Date(now).toISOString()]);
    return sid;
  }

  /**
   * Due rows whose stream has nothing earlier pending, leased for `leaseMs` (a crashed worker's lease expires).
   * The attempt is counted at the claim, so a process killed mid-delivery still uses up that attempt. A row another
   * worker is claiming is passed over; the one behind it in its stream is not a head while it is pending, so order
   * holds across workers. An idle outbox costs one plain read: the transaction is opened only when a row is due.
   */
  async claimDue(limit: number, leaseMs: number): Promise<ClaimedCallback[]> {
    const now = this.clock.now();
    if (!(await this.sql.one(`SELECT c.id FROM callback_outbox c WHERE ${CLAIMABLE} LIMIT 1`, [now, now]))) return [];
    return this.sql.transaction(async (tx) => {
      const rows = await tx.all<Row>(`SELECT id, sid, account_id, stream, url, method, fields, attempt_count FROM callback_outbox c
        WHERE ${CLAIMABLE} ORDER BY c.id LIMIT ?${rowLock(tx, { skipLocked: true })}`, [now, now, limit]);
      const claimed: ClaimedCallback[] = [];
      for (const r of rows) {
        await tx.run('UPDATE callback_outbox SET lease_until = ?, attempt_count = attempt_count + 1 WHERE id = ?', [now + leaseMs, r.id]);
        claimed.push({
          id: r.id, sid: r.sid, accountId: r.account_id, stream: r.stream, url: r.url, method: r.method,
          fields: JSON.parse(r.fields) as Record<string, string>, attempt: r.attempt_count + 1,
        });
      }
      return claimed;
    });
  }

  async finish(id: number, outcome: { status: CallbackStatus; nextAttemptAt: number | null; statusCode: number | null; error: string | null }): Promise<void> {
    await this.sql.run(`UPDATE callback_outbox SET status = ?, next_attempt_at = COALESCE(?, next_attempt_at), lease_until = 0,
        last_status_code = ?, last_error = ?, completed_at = ? WHERE id = ?`,
    [outcome.status, outcome.nextAttemptAt, outcome.statusCode, outcome.error,
      outcome.status === 'pending' ? null : new Date(this.clock.now()).toISOString(), id]);
  }

  /**
   * When the next claimable row becomes due (retry time or lease expiry), or null. Rows waiting behind an earlier
   * row of their stream are left out: they become claimable only when that row finishes, which wakes the worker.
   */
  async nextDueAt(): Promise<number | null> {
    const row = await this.sql.one<{ at: number | null }>(`SELECT MIN(${DUE_AT}) AS at FROM callback_outbox c WHERE ${HEAD_OF_STREAM}`);
    return row?.at ?? null;
  }

  /** Forgets delivered and exhausted rows finished before `cutoffMs`; pending rows are never touched. */
  async prune(cutoffMs: number): Promise<{ callbacks: number }> {
    const cutoff = new Date(cutoffMs).toISOString();
    const removed = await this.sql.run("DELETE FROM callback_outbox WHERE status IN ('delivered', 'exhausted') AND completed_at < ?", [cutoff]);
    return { callbacks: removed.changes };
  }
}
