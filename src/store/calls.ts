import { rowLock, type SqlDb, type SqlQueries, type SqlValue } from './sql.js';
import { countCall } from './call-days.js';
import { TimelineWriter } from './timeline-writer.js';
import type { Clock } from '../clock.js';

export type CallDirection = 'inbound' | 'outbound-api' | 'outbound-dial' | 'trunk';
export type CallStatus = 'queued' | 'ringing' | 'in-progress' | 'completed' | 'busy' | 'failed' | 'no-answer' | 'canceled';
export const FINAL_STATUSES: ReadonlySet<CallStatus> = new Set(['completed', 'busy', 'failed', 'no-answer', 'canceled']);

export interface CallRecord {
  sid: string;
  accountId: number;
  direction: CallDirection;
  from: string;
  to: string;
  status: CallStatus;
  numberId: number | null;
  trunkId: number | null;
  parentSid: string | null;
  createdAt: string;
  answeredAt: string | null;
  endedAt: string | null;
  duration: number | null;
  hangupCause: string | null;
  /** Where this call's own status callbacks go (API calls); trunks and numbers carry theirs in settings. */
  callbackUrl: string | null;
  callbackEvents: string[];
  callbackMethod: 'POST' | 'GET';
  /** The control plane (instance id) carrying the call, where commands for it run; null for rows older than instances. */
  owner: string | null;
  /** What answering-machine detection found (human, machine_start, …, src/media/answering-machine.ts); null when none ran. */
  answeredBy: string | null;
}

interface Row {
  sid: string; account_id: number; direction: CallDirection; from_addr: string; to_addr: string; status: CallStatus;
  number_id: number | null; trunk_id: number | null; parent_sid: string | null; created_at: string;
  answered_at: string | null; ended_at: string | null; duration: number | null; hangup_cause: string | null;
  callback_url: string | null; callback_events: string | null; callback_method: 'POST' | 'GET' | null; owner: string | null;
  answered_by: string | null;
}

const toCall = (r: Row): CallRecord => ({
  sid: r.sid, accountId: r.account_id, direction: r.direction, from: r.from_addr, to: r.to_addr, status: r.status,
  numberId: r.number_id, trunkId: r.trunk_id, parentSid: r.parent_sid, createdAt: r.created_at,
  answeredAt: r.answered_at, endedAt: r.ended_at, duration: r.duration, hangupCause: r.hangup_cause,
  callbackUrl: r.callback_url, callbackEvents: r.callback_events ? r.callback_events.split(' ') : [], callbackMethod: r.callback_method ?? 'POST',
  owner: r.owner, answeredBy: r.answered_by,
});

type NewCall = Pick<CallRecord, 'sid' | 'accountId' | 'direction' | 'from' | 'to' | 'status'>
  & Partial<Pick<CallRecord, 'numberId' | 'trunkId' | 'parentSid' | 'callbackUrl' | 'callbackEvents' | 'callbackMethod'>>
  & { createdAtMs?: number };

export interface CallFilter {
  status?: CallStatus;
  direction?: CallDirection;
  from?: string;
  to?: string;
  numberId?: number;
  trunkId?: number;
  parentSid?: string;
  /** ISO timestamps bounding created_at: [since, until). */
  since?: string;
  until?: string;
  before?: string;
  limit?: number;
}

export interface TimelineEntry { id: number; at: string; kind: string; detail: Record<string, unknown> }

/** Calls are written from their first event, so a crash loses nothing already known about them. */
export class CallRepo {
  /** `owner`: the instance running the calls this repo creates (crash reconciliation finds them by it). */
  readonly #timelineWriter: TimelineWriter;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, private readonly owner: string) {
    this.#timelineWriter = new TimelineWriter(sql);
  }

  async create(c: NewCall): Promise<CallRecord> {
    return this.sql.transaction(async (tx) => {
      const row = (await tx.one<Row>(`INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, number_id, trunk_id, parent_sid, created_at,
                                        callback_url, callback_events, callback_method, owner)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [c.sid, c.accountId, c.direction, c.from, c.to, c.status, c.numberId ?? null, c.trunkId ?? null, c.parentSid ?? null,
      new Date(c.createdAtMs ?? this.clock.now()).toISOString(),
      c.callbackUrl ?? null, c.callbackEvents?.length ? c.callbackEvents.join(' ') : null, c.callbackMethod ?? null, this.owner]))!;
      await countCall(tx, row, 'created');
      return toCall(row);
    });
  }

  async get(sid: string, q: SqlQueries = this.sql): Promise<CallRecord | undefined> {
    const row = await q.one<Row>('SELECT * FROM calls WHERE sid = ?', [sid]);
    return row && toCall(row);
  }

  async getForAccount(accountId: number, sid: string): Promise<CallRecord | undefined> {
    const c = await this.get(sid);
    return c && c.accountId === accountId ? c : undefined;
  }

  /**
   * Newest first, keyset-paginated on (created_at, sid) so pages stay stable while new calls arrive.
   * `before` is the cursor: the sid of the last call of the previous page.
   */
  async list(accountId: number, f: CallFilter = {}): Promise<{ calls: CallRecord[]; next: string | null }> {
    const limit = Math.min(Math.max(f.limit ?? 50, 1), 100);
    const where = ['account_id = ?'];
    const args: SqlValue[] = [accountId];
    const eq = (column: string, value: string | number | undefined | null) => {
      if (value !== undefined && value !== null) { where.push(`${column} = ?`); args.push(value); }
    };
    eq('status', f.status); eq('direction', f.direction); eq('from_addr', f.from); eq('to_addr', f.to);
    eq('number_id', f.numberId); eq('trunk_id', f.trunkId); eq('parent_sid', f.parentSid);
    if (f.since) { where.push('created_at >= ?'); args.push(f.since); }
    if (f.until) { where.push('created_at < ?'); args.push(f.until); }
    const cursor = f.before ? await this.get(f.before) : undefined;
    if (cursor && cursor.accountId === accountId) {
      where.push('(created_at < ? OR (created_at = ? AND sid < ?))');
      args.push(cursor.createdAt, cursor.createdAt, cursor.sid);
    }
    const rows = await this.sql.all<Row>(`SELECT * FROM calls WHERE ${where.join(' AND ')} ORDER BY created_at DESC, sid DESC LIMIT ?`, [...args, limit + 1]);
    const calls = rows.slice(0, limit).map(toCall);
    return { calls, next: rows.length > limit ? calls[calls.length - 1]!.sid : null };
  }

  async setStatus(sid: string, status: CallStatus): Promise<void> {
    await this.sql.run('UPDATE calls SET status = ? WHERE sid = ? AND status NOT IN (\'completed\',\'busy\',\'failed\',\'no-answer\',\'canceled\')', [status, sid]);
  }

  async setAnsweredBy(sid: string, answeredBy: string): Promise<void> {
    await this.sql.run('UPDATE calls SET answered_by = ? WHERE sid = ?', [answeredBy, sid]);
  }

  /** What the engine needs to end the call's leg after this process dies (see CallLeg.orphanRef). */
  async setOrphanRef(sid: string, ref: string | null): Promise<void> {
    await this.sql.run('UPDATE calls SET orphan_ref = ? WHERE sid = ?', [ref, sid]);
  }

  async orphanRef(sid: string): Promise<string | null> {
    return (await this.sql.one<{ orphan_ref: string | null }>('SELECT orphan_ref FROM calls WHERE sid = ?', [sid]))?.orphan_ref ?? null;
  }

  /** The first answer only; counted on the call's day (src/store/call-days.ts) in the same transaction. */
  async markAnswered(sid: string, q?: SqlQueries): Promise<void> {
    const mark = async (tx: SqlQueries) => {
      const call = await tx.one<Pick<Row, 'account_id' | 'created_at' | 'parent_sid'>>(`UPDATE calls SET status = 'in-progress', answered_at = ?
        WHERE sid = ? AND answered_at IS NULL RETURNING account_id, created_at, parent_sid`, [this.#now(), sid]);
      if (call) await countCall(tx, call, 'answered');
    };
    await (q ? mark(q) : this.sql.transaction(mark));
  }

  /**
   * Final state, once: a second finish (e.g. a late hangup event) leaves the first one in place. The row is locked
   * while its duration is worked out, so an answer committing meanwhile elsewhere cannot be missed.
   */
  async finish(sid: string, status: CallStatus, hangupCause: string, q: SqlQueries = this.sql): Promise<CallRecord> {
    const now = this.clock.now();
    const row = await q.one<Row>(`SELECT * FROM calls WHERE sid = ?${rowLock(q)}`, [sid]);
    if (row && !row.ended_at) {
      const duration = row.answered_at ? Math.max(0, Math.round((now - Date.parse(row.answered_at)) / 1000)) : 0;
      return toCall((await q.one<Row>('UPDATE calls SET status = ?, ended_at = ?, duration = ?, hangup_cause = ? WHERE sid = ? RETURNING *',
        [status, new Date(now).toISOString(), duration, hangupCause, sid]))!);
    }
    return toCall(row!);
  }

  /** Finishes a call a dead instance left open; null when it had already ended (a conditional update: one survivor wins). */
  async finishLost(sid: string, end: { status: CallStatus; endedAt: string; duration: number; cause: string }, q: SqlQueries): Promise<CallRecord | null> {
    const row = await q.one<Row>('UPDATE calls SET status = ?, ended_at = ?, duration = ?, hangup_cause = ? WHERE sid = ? AND ended_at IS NULL RETURNING *',
      [end.status, end.endedAt, end.duration, end.cause, sid]);
    return row ? toCall(row) : null;
  }

  /** The owners (instance ids; null for rows older than instances) of calls not yet ended. */
  async openOwners(): Promise<Array<string | null>> {
    return (await this.sql.all<{ owner: string | null }>('SELECT DISTINCT owner FROM calls WHERE ended_at IS NULL')).map((r) => r.owner);
  }

  /** How many calls each owner (instance id; null: none recorded) carries that have not ended. */
  async openCountsByOwner(): Promise<Map<string | null, number>> {
    const rows = await this.sql.all<{ owner: string | null; n: number }>('SELECT owner, COUNT(*) AS n FROM calls WHERE ended_at IS NULL GROUP BY owner');
    return new Map(rows.map((r) => [r.owner, r.n]));
  }

  /** The calls `owner` (null: no owner recorded) has not ended, oldest first. */
  async openOf(owner: string | null): Promise<CallRecord[]> {
    const rows = owner === null
      ? await this.sql.all<Row>('SELECT * FROM calls WHERE ended_at IS NULL AND owner IS NULL ORDER BY created_at, sid')
      : await this.sql.all<Row>('SELECT * FROM calls WHERE ended_at IS NULL AND owner = ? ORDER BY created_at, sid', [owner]);
    return rows.map(toCall);
  }

  /** Stores an entry now, in `q`'s transaction when given. */
  async addTimeline(sid: string, kind: string, detail: Record<string, unknown>, q: SqlQueries = this.sql): Promise<void> {
    await q.run('INSERT INTO call_timeline (call_sid, at, kind, detail) VALUES (?, ?, ?, ?)', [sid, this.#now(), kind, JSON.stringify(detail)]);
  }

  /**
   * Stores an entry with the others noted in this event-loop turn (src/store/timeline-writer.ts): what a running
   * call notes. Its time is now; resolves once it is stored.
   */
  noteTimeline(sid: string, kind: string, detail: Record<string, unknown>): Promise<void> {
    return this.#timelineWriter.add({ sid, at: this.#now(), kind, detail: JSON.stringify(detail) });
  }

  /** Resolves once every entry noted so far is stored (or refused): before the database closes. */
  timelineFlushed(): Promise<void> { return this.#timelineWriter.flushed(); }

  /** The call's entries, with every entry this process noted before the call. */
  async timeline(sid: string): Promise<TimelineEntry[]> {
    await this.#timelineWriter.flushed();
    return (await this.sql.all<{ id: number; at: string; kind: string; detail: string }>('SELECT id, at, kind, detail FROM call_timeline WHERE call_sid = ? ORDER BY id', [sid]))
      .map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
  }

  /** When the call last did anything its timeline recorded (ISO time), or null. */
  async lastActivity(sid: string): Promise<string | null> {
    await this.#timelineWriter.flushed();
    return (await this.sql.one<{ at: string | null }>('SELECT MAX(at) AS at FROM call_timeline WHERE call_sid = ?', [sid]))?.at ?? null;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
