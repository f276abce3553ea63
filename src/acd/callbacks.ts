// Scheduled callbacks in SQLite: a customer to call back for a queue at a time. Each step is a conditional UPDATE,
// so a callback is claimed (dialing) once, canceled only while scheduled, and either retried or finished.
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';

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
  agent_sid: string | null; last_error: string | null; created_at: string; updated_at: string;
}

const SELECT = 'SELECT c.*, q.sid AS queue_sid, q.friendly_name AS queue_name FROM acd_callbacks c LEFT JOIN acd_queues q ON q.id = c.queue_id';

const toCallback = (r: Row): ScheduledCallback => ({
  id: r.id, sid: r.sid, accountId: r.account_id, queueId: r.queue_id, queueSid: r.queue_sid, queueName: r.queue_name, to: r.to_number,
  from: r.from_number, dueAt: r.due_at, attributes: JSON.parse(r.attributes) as Record<string, string>, leadSid: r.lead_sid, status: r.status,
  attempts: r.attempts, callSid: r.call_sid, agentSid: r.agent_sid, lastError: r.last_error, createdAt: r.created_at, updatedAt: r.updated_at,
});

export class CallbackRepo {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  create(c: NewCallback): ScheduledCallback {
    const now = this.#iso();
    this.db.prepare(`INSERT INTO acd_callbacks (sid, account_id, queue_id, to_number, from_number, due_at, attributes, lead_sid, status, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'scheduled', ?, ?)`).run(c.sid, c.accountId, c.queueId, c.to, c.from, c.dueAt, JSON.stringify(c.attributes), c.leadSid, now, now);
    return this.get(c.sid)!;
  }

  get(sid: string): ScheduledCallback | undefined {
    const row = this.db.prepare(`${SELECT} WHERE c.sid = ?`).get(sid) as Row | undefined;
    return row && toCallback(row);
  }

  getForAccount(accountId: number, sid: string): ScheduledCallback | undefined {
    const found = this.get(sid);
    return found?.accountId === accountId ? found : undefined;
  }

  listForAccount(accountId: number, filter: { status?: CallbackStatus }, page: { beforeId: number | null; limit: number }): ScheduledCallback[] {
    return (this.db.prepare(`${SELECT} WHERE c.account_id = ? AND (? IS NULL OR c.id < ?) AND (? IS NULL OR c.status = ?) ORDER BY c.id DESC LIMIT ?`)
      .all(accountId, page.beforeId, page.beforeId, filter.status ?? null, filter.status ?? null, page.limit) as Row[]).map(toCallback);
  }

  /** The callback whose latest attempt is this call, if any. */
  forCall(callSid: string): ScheduledCallback | undefined {
    const row = this.db.prepare(`${SELECT} WHERE c.call_sid = ?`).get(callSid) as Row | undefined;
    return row && toCallback(row);
  }

  /** The callback a lead became (speed to lead), if any. */
  forLead(leadSid: string): ScheduledCallback | undefined {
    const row = this.db.prepare(`${SELECT} WHERE c.lead_sid = ?`).get(leadSid) as Row | undefined;
    return row && toCallback(row);
  }

  /** How many of the account's callbacks still to be made (scheduled or dialing) call from this number. */
  countOpenFrom(accountId: number, from: string): number {
    return this.db.prepare("SELECT COUNT(*) FROM acd_callbacks WHERE account_id = ? AND from_number = ? AND status IN ('scheduled', 'dialing')")
      .pluck().get(accountId, from) as number;
  }

  /** Cancels a callback that is still scheduled; false once it is dialing or finished. */
  cancel(sid: string): boolean {
    return this.db.prepare("UPDATE acd_callbacks SET status = 'canceled', updated_at = ? WHERE sid = ? AND status = 'scheduled'").run(this.#iso(), sid).changes === 1;
  }

  /** Claims the callbacks that are due (scheduled → dialing, one attempt more), oldest due first; `each` runs in the same transaction. */
  claimDue(limit: number, each: (c: OpenCallback) => void): OpenCallback[] {
    return this.db.transaction(() => {
      const due = (this.db.prepare(`${SELECT} WHERE c.status = 'scheduled' AND c.due_at <= ? ORDER BY c.due_at, c.id LIMIT ?`).all(this.clock.now(), limit) as Row[])
        .map(toCallback).filter(isOpen);
      const claim = this.db.prepare("UPDATE acd_callbacks SET status = 'dialing', attempts = attempts + 1, updated_at = ? WHERE id = ? AND status = 'scheduled'");
      return due.filter((c) => claim.run(this.#iso(), c.id).changes === 1).map((c) => {
        const claimed = { ...c, status: 'dialing' as const, attempts: c.attempts + 1 };
        each(claimed);
        return claimed;
      });
    }).immediate();
  }

  /** The attempt's calls: the customer's, and the agent who took it. */
  attempt(sid: string, callSid: string, agentSid: string | null): void {
    this.db.prepare('UPDATE acd_callbacks SET call_sid = ?, agent_sid = ?, updated_at = ? WHERE sid = ?').run(callSid, agentSid, this.#iso(), sid);
  }

  complete(sid: string): void {
    this.db.prepare("UPDATE acd_callbacks SET status = 'completed', last_error = NULL, updated_at = ? WHERE sid = ? AND status = 'dialing'").run(this.#iso(), sid);
  }

  /** The attempt failed: scheduled again at `retryAt`, or failed for good when null. */
  attemptFailed(sid: string, error: string, retryAt: number | null): void {
    if (retryAt === null) this.db.prepare("UPDATE acd_callbacks SET status = 'failed', last_error = ?, updated_at = ? WHERE sid = ? AND status = 'dialing'").run(error, this.#iso(), sid);
    else this.db.prepare("UPDATE acd_callbacks SET status = 'scheduled', due_at = ?, last_error = ?, updated_at = ? WHERE sid = ? AND status = 'dialing'").run(retryAt, error, this.#iso(), sid);
  }

  /**
   * Callbacks left dialing by a process that died are scheduled again (the attempt counts); returns them, with the
   * call each attempt had queued, so its place in the queue can be given up.
   */
  requeueDialing(except: (sid: string) => boolean): Array<{ sid: string; callSid: string | null }> {
    const rows = this.db.prepare("SELECT sid, call_sid FROM acd_callbacks WHERE status = 'dialing'").all() as Array<{ sid: string; call_sid: string | null }>;
    const back = this.db.prepare("UPDATE acd_callbacks SET status = 'scheduled', last_error = 'the platform restarted during the attempt', updated_at = ? WHERE sid = ? AND status = 'dialing'");
    return rows.filter((r) => !except(r.sid) && back.run(this.#iso(), r.sid).changes === 1).map((r) => ({ sid: r.sid, callSid: r.call_sid }));
  }

  #iso(): string { return new Date(this.clock.now()).toISOString(); }
}
