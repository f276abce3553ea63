// Scheduled callbacks in the store (SQLite or PostgreSQL): a customer to call back for a queue at a time. Each step
// is a conditional UPDATE, so a callback is claimed (dialing) once, canceled only while scheduled, and either retried
// or finished; due callbacks are claimed under row locks that other dialers pass over (docs/acd.md, Storage).
import { rowLock, type SqlDb, type SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';
import type { AnsweredBy } from '../media/answering-machine.js';

export type CallbackStatus = 'scheduled' | 'dialing' | 'completed' | 'failed' | 'canceled';

export interface ScheduledCallback {
  id: number;
  sid: string;
  accountId: number;
  /** Null once the queue was deleted (only a finished callback can outlive its queue). */
  queueId: number | null;
  queueSid: string | null;
  queueName: string | null;
  to: string;
  from: string;
  dueAt: number;
  attributes: Record<string, string>;
  leadSid: string | null;
  status: CallbackStatus;
  attempts: number;
  /** The latest attempt's call to the customer. */
  callSid: string | null;
  agentSid: string | null;
  /** What answered the latest attempt's call, when its queue detects machines (else null). */
  answeredBy: AnsweredBy | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
}

/** A callback being made: its queue exists (a queue cannot be deleted while it has one). */
export type OpenCallback = ScheduledCallback & { queueId: number; queueSid: string; queueName: string };
const isOpen = (c: ScheduledCallback): c is OpenCallback => c.queueId !== null && c.queueSid !== null && c.queueName !== null;

export interface NewCallback { sid: string; accountId: number; queueId: number; to: string; from: string; dueAt: number; attributes: Record<string, string>; leadSid: string | null }

interface Row {
  id: number; sid: string; account_id: number; queue_id: number | null; queue_sid: string | null; queue_name: string | null; to_number: string; from_number: string;
  due_at: number; attributes: string; lead_sid: string | null; status: CallbackStatus; attempts: number; call_sid: string | null;
  agent_sid: string | null; answered_by: AnsweredBy | null; last_error: string | null; created_at: string; updated_at: string;
}

/** Callbacks due at `?` (indexed: acd_callbacks_due). */
const DUE = "status = 'scheduled' AND due_at <= ?";
const SELECT = `SELECT c.*, q.sid AS queue_sid, q.friendly_name AS queue_name, k.answered_by FROM acd_callbacks c LEFT JOIN acd_queues q ON q.id = c.queue_id
  LEFT JOIN calls k ON k.sid = c.call_sid`;

const toCallback = (r: Row): ScheduledCallback => ({
  id: r.id, sid: r.sid, accountId: r.account_id, queueId: r.queue_id, queueSid: r.queue_sid, queueName: r.queue_name, to: r.to_number,
  from: r.from_number, dueAt: r.due_at, attributes: JSON.parse(r.attributes) as Record<string, string>, leadSid: r.lead_sid, status: r.status,
  attempts: r.attempts, callSid: r.call_sid, agentSid: r.agent_sid, answeredBy: r.answered_by, lastError: r.last_error, createdAt: r.created_at, updatedAt: r.updated_at,
});

export class CallbackRepo {
  /** `instanceId`: this process (src/recovery): a callback it claims is dialed by it, and put back only once it is gone. */
  constructor(private readonly sql: SqlDb, private readonly clock: Clock, private readonly instanceId: string) {}

  /** `q`: the caller's transaction when the callback commits with what made it (a lead and its event). */
  async create(c: NewCallback, q: SqlQueries = this.sql): Promise<ScheduledCallback> {
    const now = this.#iso();
    await q.run(`INSERT INTO acd_callbacks (sid, account_id, queue_id, to_number, from_number, due_at, attributes, lead_sid, status, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?)`, [c.sid, c.accountId, c.queueId, c.to, c.from, c.dueAt, JSON.stringify(c.attributes), c.leadSid, now, now]);
    return (await this.#one(q, 'c.sid = ?', c.sid))!;
  }

  get(sid: string): Promise<ScheduledCallback | undefined> { return this.#one(this.sql, 'c.sid = ?', sid); }

  async getForAccount(accountId: number, sid: string): Promise<ScheduledCallback | undefined> {
    const found = await this.get(sid);
    return found?.accountId === accountId ? found : undefined;
  }

  async listForAccount(accountId: number, filter: { status?: CallbackStatus }, page: { beforeId: number | null; limit: number }): Promise<ScheduledCallback[]> {
    return (await this.sql.all<Row>(`${SELECT} WHERE c.account_id = ? AND (CAST(? AS BIGINT) IS NULL OR c.id < ?) AND (CAST(? AS TEXT) IS NULL OR c.status = ?)
      ORDER BY c.id DESC LIMIT ?`, [accountId, page.beforeId, page.beforeId, filter.status ?? null, filter.status ?? null, page.limit])).map(toCallback);
  }

  /** The callback whose latest attempt is this call, if any. */
  forCall(callSid: string): Promise<ScheduledCallback | undefined> { return this.#one(this.sql, 'c.call_sid = ?', callSid); }

  /** The callback a lead became (speed to lead), if any. */
  forLead(leadSid: string): Promise<ScheduledCallback | undefined> { return this.#one(this.sql, 'c.lead_sid = ?', leadSid); }

  /** How many of the account's callbacks still to be made (scheduled or dialing) call from this number. */
  async countOpenFrom(accountId: number, from: string): Promise<number> {
    return (await this.sql.one<{ n: number }>("SELECT COUNT(*) AS n FROM acd_callbacks WHERE account_id = ? AND from_number = ? AND status IN ('scheduled', 'dialing')",
      [accountId, from]))!.n;
  }

  /** Cancels a callback that is still scheduled; false once it is dialing or finished. */
  async cancel(sid: string): Promise<boolean> {
    return (await this.sql.run("UPDATE acd_callbacks SET status = 'canceled', updated_at = ? WHERE sid = ? AND status = 'scheduled'", [this.#iso(), sid])).changes === 1;
  }

  /**
   * Claims the callbacks that are due (scheduled → dialing, one attempt more), oldest due first; `each` runs in the
   * same transaction, with it. The due rows are locked as they are read, and rows another dialer has locked are
   * passed over (SKIP LOCKED on PostgreSQL; SQLite's one writer needs no lock): each due callback is claimed by one
   * dialer, and dialers never wait on each other. The sweep asks every second: when a plain indexed read finds
   * nothing due, no transaction is opened (on PostgreSQL that is three round trips, on SQLite the write lock).
   */
  async claimDue(limit: number, each: (tx: SqlQueries, c: OpenCallback) => Promise<void>): Promise<OpenCallback[]> {
    const now = this.clock.now();
    if (!(await this.sql.one(`SELECT id FROM acd_callbacks WHERE ${DUE} LIMIT 1`, [now]))) return [];
    return this.sql.transaction(async (tx) => {
      const due = await tx.all<{ id: number }>(`SELECT id FROM acd_callbacks WHERE ${DUE} ORDER BY due_at, id LIMIT ?${rowLock(tx, { skipLocked: true })}`,
        [now, limit]);
      const claimed: OpenCallback[] = [];
      for (const { id } of due) {
        // Held by this transaction since the SELECT: still scheduled, so the claim takes it.
        const took = await tx.run("UPDATE acd_callbacks SET status = 'dialing', attempts = attempts + 1, claimed_by = ?, updated_at = ? WHERE id = ? AND status = 'scheduled'",
          [this.instanceId, this.#iso(), id]);
        const c = took.changes === 1 ? await this.#one(tx, 'c.id = ?', id) : undefined;
        if (!c || !isOpen(c)) continue;
        await each(tx, c);
        claimed.push(c);
      }
      return claimed;
    });
  }

  /** The attempt's calls: the customer's, and the agent who took it. */
  async attempt(sid: string, callSid: string, agentSid: string | null): Promise<void> {
    await this.sql.run('UPDATE acd_callbacks SET call_sid = ?, agent_sid = ?, updated_at = ? WHERE sid = ?', [callSid, agentSid, this.#iso(), sid]);
  }

  async complete(sid: string): Promise<void> {
    await this.sql.run("UPDATE acd_callbacks SET status = 'completed', last_error = NULL, updated_at = ? WHERE sid = ? AND status = 'dialing'", [this.#iso(), sid]);
  }

  /** The attempt failed: scheduled again at `retryAt`, or failed for good when null. `q`: the claim's transaction, when it fails as claimed. */
  async attemptFailed(sid: string, error: string, retryAt: number | null, q: SqlQueries = this.sql): Promise<void> {
    if (retryAt === null) await q.run("UPDATE acd_callbacks SET status = 'failed', last_error = ?, updated_at = ? WHERE sid = ? AND status = 'dialing'", [error, this.#iso(), sid]);
    else await q.run("UPDATE acd_callbacks SET status = 'scheduled', due_at = ?, last_error = ?, updated_at = ? WHERE sid = ? AND status = 'dialing'", [retryAt, error, this.#iso(), sid]);
  }

  /**
   * Callbacks left dialing by a process that is gone are scheduled again (the attempt counts); returns them, with
   * the call each attempt had queued, so its place in the queue can be given up. Gone: no longer registered, or dead
   * and claimed by a survivor (src/recovery); the attempts of live processes, this one's included, are left to them.
   */
  async requeueDialing(except: (sid: string) => boolean): Promise<Array<{ sid: string; callSid: string | null }>> {
    const rows = await this.sql.all<{ sid: string; call_sid: string | null }>(`SELECT sid, call_sid FROM acd_callbacks c WHERE status = 'dialing'
      AND (claimed_by IS NULL OR (claimed_by <> ? AND NOT EXISTS (SELECT 1 FROM instances i WHERE i.id = c.claimed_by AND i.reconciled_by IS NULL)))`,
    [this.instanceId]);
    const back: Array<{ sid: string; callSid: string | null }> = [];
    for (const r of rows) {
      if (except(r.sid)) continue;
      const moved = await this.sql.run("UPDATE acd_callbacks SET status = 'scheduled', last_error = 'the platform restarted during the attempt', updated_at = ? WHERE sid = ? AND status = 'dialing'",
        [this.#iso(), r.sid]);
      if (moved.changes === 1) back.push({ sid: r.sid, callSid: r.call_sid });
    }
    return back;
  }

  async #one(q: SqlQueries, where: string, value: string | number): Promise<ScheduledCallback | undefined> {
    const row = await q.one<Row>(`${SELECT} WHERE ${where}`, [value]);
    return row && toCallback(row);
  }

  #iso(): string { return new Date(this.clock.now()).toISOString(); }
}
