// The callback outbox: per-resource status callbacks (conference events now) written in the same transaction as
// the change that caused them, then claimed under a lease by the worker. Rows of one stream (one conference) go
// out in order: a row waits while an earlier row of its stream is still pending.
import type { Db } from '../store/db.js';
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

export class CallbackStore {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  enqueue(c: QueuedCallback): string {
    const sid = newSid('CB');
    const now = this.clock.now();
    this.db.prepare(`INSERT INTO callback_outbox (sid, account_id, stream, url, method, fields, status, attempt_count, next_attempt_at, lease_until, created_at)
      VALUES (?, ?, ?, ?, ?, ?, 'pending', 0, ?, 0, ?)`)
      .run(sid, c.accountId, c.stream, c.url, c.method, JSON.stringify(c.fields), now, new Date(now).toISOString());
    return sid;
  }

  /**
   * Due rows whose stream has nothing earlier pending, leased for `leaseMs` (a crashed worker's lease expires).
   * The attempt is counted at the claim, so a process killed mid-delivery still uses up that attempt.
   */
  claimDue(limit: number, leaseMs: number): ClaimedCallback[] {
    const now = this.clock.now();
    return this.db.transaction(() => {
      const rows = this.db.prepare(`SELECT id, sid, account_id, stream, url, method, fields, attempt_count FROM callback_outbox c
        WHERE ${HEAD_OF_STREAM} AND c.next_attempt_at <= ? AND c.lease_until <= ? ORDER BY c.id LIMIT ?`).all(now, now, limit) as Row[];
      const lease = this.db.prepare('UPDATE callback_outbox SET lease_until = ?, attempt_count = attempt_count + 1 WHERE id = ?');
      return rows.map((r) => {
        lease.run(now + leaseMs, r.id);
        return {
          id: r.id, sid: r.sid, accountId: r.account_id, stream: r.stream, url: r.url, method: r.method,
          fields: JSON.parse(r.fields) as Record<string, string>, attempt: r.attempt_count + 1,
        };
      });
    }).immediate(); // take the write lock before reading, so two processes cannot lease the same row
  }

  finish(id: number, outcome: { status: CallbackStatus; nextAttemptAt: number | null; statusCode: number | null; error: string | null }): void {
    this.db.prepare(`UPDATE callback_outbox SET status = ?, next_attempt_at = COALESCE(?, next_attempt_at), lease_until = 0,
        last_status_code = ?, last_error = ?, completed_at = ? WHERE id = ?`)
      .run(outcome.status, outcome.nextAttemptAt, outcome.statusCode, outcome.error,
        outcome.status === 'pending' ? null : new Date(this.clock.now()).toISOString(), id);
  }

  /**
   * When the next claimable row becomes due (retry time or lease expiry), or null. Rows waiting behind an earlier
   * row of their stream are left out: they become claimable only when that row finishes, which wakes the worker.
   */
  nextDueAt(): number | null {
    const row = this.db.prepare(`SELECT MIN(MAX(c.next_attempt_at, c.lease_until)) AS at FROM callback_outbox c WHERE ${HEAD_OF_STREAM}`)
      .get() as { at: number | null };
    return row.at;
  }

  /** Forgets delivered and exhausted rows finished before `cutoffMs`; pending rows are never touched. */
  prune(cutoffMs: number): { callbacks: number } {
    const cutoff = new Date(cutoffMs).toISOString();
    const removed = this.db.prepare("DELETE FROM callback_outbox WHERE status IN ('delivered', 'exhausted') AND completed_at < ?").run(cutoff);
    return { callbacks: removed.changes };
  }
}
