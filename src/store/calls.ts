import type { Db } from './db.js';
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
}

interface Row {
  sid: string; account_id: number; direction: CallDirection; from_addr: string; to_addr: string; status: CallStatus;
  number_id: number | null; trunk_id: number | null; parent_sid: string | null; created_at: string;
  answered_at: string | null; ended_at: string | null; duration: number | null; hangup_cause: string | null;
  callback_url: string | null; callback_events: string | null; callback_method: 'POST' | 'GET' | null;
}

const toCall = (r: Row): CallRecord => ({
  sid: r.sid, accountId: r.account_id, direction: r.direction, from: r.from_addr, to: r.to_addr, status: r.status,
  numberId: r.number_id, trunkId: r.trunk_id, parentSid: r.parent_sid, createdAt: r.created_at,
  answeredAt: r.answered_at, endedAt: r.ended_at, duration: r.duration, hangupCause: r.hangup_cause,
  callbackUrl: r.callback_url, callbackEvents: r.callback_events ? r.callback_events.split(' ') : [], callbackMethod: r.callback_method ?? 'POST',
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
  constructor(private readonly db: Db, private readonly clock: Clock, private readonly owner: string) {}

  create(c: NewCall): CallRecord {
    this.db.prepare(`INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, number_id, trunk_id, parent_sid, created_at,
                                        callback_url, callback_events, callback_method, owner)
                     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(c.sid, c.accountId, c.direction, c.from, c.to, c.status, c.numberId ?? null, c.trunkId ?? null, c.parentSid ?? null,
        new Date(c.createdAtMs ?? this.clock.now()).toISOString(),
        c.callbackUrl ?? null, c.callbackEvents?.length ? c.callbackEvents.join(' ') : null, c.callbackMethod ?? null, this.owner);
    return this.get(c.sid)!;
  }

  get(sid: string): CallRecord | undefined {
    const row = this.db.prepare('SELECT * FROM calls WHERE sid = ?').get(sid) as Row | undefined;
    return row && toCall(row);
  }

  getForAccount(accountId: number, sid: string): CallRecord | undefined {
    const c = this.get(sid);
    return c && c.accountId === accountId ? c : undefined;
  }

  /**
   * Newest first, keyset-paginated on (created_at, sid) so pages stay stable while new calls arrive.
   * `before` is the cursor: the sid of the last call of the previous page.
   */
  list(accountId: number, f: CallFilter = {}): { calls: CallRecord[]; next: string | null } {
    const limit = Math.min(Math.max(f.limit ?? 50, 1), 100);
    const where = ['account_id = ?'];
    const args: unknown[] = [accountId];
    const eq = (column: string, value: string | number | undefined | null) => {
      if (value !== undefined && value !== null) { where.push(`${column} = ?`); args.push(value); }
    };
    eq('status', f.status); eq('direction', f.direction); eq('from_addr', f.from); eq('to_addr', f.to);
    eq('number_id', f.numberId); eq('trunk_id', f.trunkId); eq('parent_sid', f.parentSid);
    if (f.since) { where.push('created_at >= ?'); args.push(f.since); }
    if (f.until) { where.push('created_at < ?'); args.push(f.until); }
    const cursor = f.before ? this.get(f.before) : undefined;
    if (cursor && cursor.accountId === accountId) {
      where.push('(created_at < ? OR (created_at = ? AND sid < ?))');
      args.push(cursor.createdAt, cursor.createdAt, cursor.sid);
    }
    const rows = this.db.prepare(`SELECT * FROM calls WHERE ${where.join(' AND ')} ORDER BY created_at DESC, sid DESC LIMIT ?`)
      .all(...args, limit + 1) as Row[];
    const calls = rows.slice(0, limit).map(toCall);
    return { calls, next: rows.length > limit ? calls[calls.length - 1]!.sid : null };
  }

  setStatus(sid: string, status: CallStatus): void {
    this.db.prepare('UPDATE calls SET status = ? WHERE sid = ? AND status NOT IN (\'completed\',\'busy\',\'failed\',\'no-answer\',\'canceled\')').run(status, sid);
  }

  /** What the engine needs to end the call's leg after this process dies (see CallLeg.orphanRef). */
  setOrphanRef(sid: string, ref: string | null): void {
    this.db.prepare('UPDATE calls SET orphan_ref = ? WHERE sid = ?').run(ref, sid);
  }

  markAnswered(sid: string): void {
    this.db.prepare("UPDATE calls SET status = 'in-progress', answered_at = ? WHERE sid = ? AND answered_at IS NULL").run(this.#now(), sid);
  }

  /** Final state, once: a second finish (e.g. a late hangup event) leaves the first one in place. */
  finish(sid: string, status: CallStatus, hangupCause: string): CallRecord {
    const now = this.clock.now();
    const call = this.get(sid);
    if (call && !call.endedAt) {
      const duration = call.answeredAt ? Math.max(0, Math.round((now - Date.parse(call.answeredAt)) / 1000)) : 0;
      this.db.prepare('UPDATE calls SET status = ?, ended_at = ?, duration = ?, hangup_cause = ? WHERE sid = ?')
        .run(status, new Date(now).toISOString(), duration, hangupCause, sid);
    }
    return this.get(sid)!;
  }

  addTimeline(sid: string, kind: string, detail: Record<string, unknown>): void {
    this.db.prepare('INSERT INTO call_timeline (call_sid, at, kind, detail) VALUES (?, ?, ?, ?)').run(sid, this.#now(), kind, JSON.stringify(detail));
  }

  timeline(sid: string): TimelineEntry[] {
    return (this.db.prepare('SELECT id, at, kind, detail FROM call_timeline WHERE call_sid = ? ORDER BY id').all(sid) as Array<{ id: number; at: string; kind: string; detail: string }>)
      .map((r) => ({ ...r, detail: JSON.parse(r.detail) as Record<string, unknown> }));
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
