// Conferences and their participants in SQLite. State changes are conditional UPDATEs on the current status, so
// two paths racing to end a conference (the API and the last participant leaving) change it exactly once.
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';

export type ConferenceStatus = 'init' | 'in-progress' | 'completed';
export type ParticipantStatus = 'connecting' | 'in-progress' | 'completed';

export interface Conference {
  id: number;
  sid: string;
  accountId: number;
  friendlyName: string;
  status: ConferenceStatus;
  record: boolean;
  maxParticipants: number;
  statusCallback: string | null;
  statusCallbackMethod: 'GET' | 'POST';
  /** Twilio's names: start, end, join, leave, mute, hold. */
  statusCallbackEvents: string[];
  endReason: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  endedAt: string | null;
}

export interface Participant {
  conferenceSid: string;
  callSid: string;
  accountId: number;
  status: ParticipantStatus;
  muted: boolean;
  hold: boolean;
  holdUrl: string | null;
  coaching: boolean;
  callSidToCoach: string | null;
  startConferenceOnEnter: boolean;
  endConferenceOnExit: boolean;
  statusCallback: string | null;
  createdAt: string;
  updatedAt: string;
}

export type NewConference = Pick<Conference, 'accountId' | 'friendlyName' | 'record' | 'maxParticipants' | 'statusCallback' | 'statusCallbackMethod' | 'statusCallbackEvents'> & { sid: string };
export type NewParticipant = Pick<Participant, 'conferenceSid' | 'callSid' | 'accountId' | 'muted' | 'startConferenceOnEnter' | 'endConferenceOnExit' | 'statusCallback'> & { status?: ParticipantStatus };
export type ParticipantChanges = Partial<Pick<Participant, 'muted' | 'hold' | 'holdUrl' | 'coaching' | 'callSidToCoach'>>;

interface ConferenceRow {
  id: number; sid: string; account_id: number; friendly_name: string; status: ConferenceStatus; record: number; max_participants: number;
  status_callback: string | null; status_callback_method: 'GET' | 'POST'; status_callback_events: string; end_reason: string | null;
  created_at: string; updated_at: string; started_at: string | null; ended_at: string | null;
}

interface ParticipantRow {
  conference_sid: string; call_sid: string; account_id: number; status: ParticipantStatus; muted: number; hold: number; hold_url: string | null;
  coaching: number; call_sid_to_coach: string | null; start_conference_on_enter: number; end_conference_on_exit: number;
  status_callback: string | null; created_at: string; updated_at: string;
}

const toConference = (r: ConferenceRow): Conference => ({
  id: r.id, sid: r.sid, accountId: r.account_id, friendlyName: r.friendly_name, status: r.status, record: r.record === 1,
  maxParticipants: r.max_participants, statusCallback: r.status_callback, statusCallbackMethod: r.status_callback_method,
  statusCallbackEvents: r.status_callback_events.split(' ').filter(Boolean), endReason: r.end_reason,
  createdAt: r.created_at, updatedAt: r.updated_at, startedAt: r.started_at, endedAt: r.ended_at,
});

const toParticipant = (r: ParticipantRow): Participant => ({
  conferenceSid: r.conference_sid, callSid: r.call_sid, accountId: r.account_id, status: r.status, muted: r.muted === 1, hold: r.hold === 1,
  holdUrl: r.hold_url, coaching: r.coaching === 1, callSidToCoach: r.call_sid_to_coach,
  startConferenceOnEnter: r.start_conference_on_enter === 1, endConferenceOnExit: r.end_conference_on_exit === 1,
  statusCallback: r.status_callback, createdAt: r.created_at, updatedAt: r.updated_at,
});

const PARTICIPANT_COLUMNS: Record<keyof ParticipantChanges, string> = {
  muted: 'muted', hold: 'hold', holdUrl: 'hold_url', coaching: 'coaching', callSidToCoach: 'call_sid_to_coach',
};

export interface ConferenceListFilter { status?: ConferenceStatus; friendlyName?: string; beforeId: number | null; limit: number }

export class ConferenceRepo {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  get(sid: string): Conference | undefined {
    const row = this.db.prepare('SELECT * FROM conferences WHERE sid = ?').get(sid) as ConferenceRow | undefined;
    return row && toConference(row);
  }

  getForAccount(accountId: number, sid: string): Conference | undefined {
    const c = this.get(sid);
    return c && c.accountId === accountId ? c : undefined;
  }

  /** The account's conference of that name that has not completed, if any. */
  openByName(accountId: number, friendlyName: string): Conference | undefined {
    const row = this.db.prepare("SELECT * FROM conferences WHERE account_id = ? AND friendly_name = ? AND status <> 'completed'")
      .get(accountId, friendlyName) as ConferenceRow | undefined;
    return row && toConference(row);
  }

  /** The open conference of that name, created with `init` when there is none (one statement, so two joiners agree). */
  openOrCreate(c: NewConference): { conference: Conference; created: boolean } {
    const now = this.#now();
    const inserted = this.db.prepare(`INSERT INTO conferences (sid, account_id, friendly_name, status, record, max_participants, status_callback,
        status_callback_method, status_callback_events, created_at, updated_at)
      VALUES (?, ?, ?, 'init', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING`)
      .run(c.sid, c.accountId, c.friendlyName, c.record ? 1 : 0, c.maxParticipants, c.statusCallback, c.statusCallbackMethod,
        c.statusCallbackEvents.join(' '), now, now);
    return { conference: this.openByName(c.accountId, c.friendlyName)!, created: inserted.changes === 1 };
  }

  /** Newest first; `beforeId` is the cursor (the id the previous page ended on). */
  list(accountId: number, f: ConferenceListFilter): Conference[] {
    const where = ['account_id = ?'];
    const args: unknown[] = [accountId];
    if (f.status) { where.push('status = ?'); args.push(f.status); }
    if (f.friendlyName !== undefined) { where.push('friendly_name = ?'); args.push(f.friendlyName); }
    if (f.beforeId !== null) { where.push('id < ?'); args.push(f.beforeId); }
    return (this.db.prepare(`SELECT * FROM conferences WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`).all(...args, f.limit) as ConferenceRow[])
      .map(toConference);
  }

  /** init → in-progress; false when it had already started or ended. */
  markStarted(sid: string): boolean {
    const now = this.#now();
    return this.db.prepare("UPDATE conferences SET status = 'in-progress', started_at = ?, updated_at = ? WHERE sid = ? AND status = 'init'")
      .run(now, now, sid).changes === 1;
  }

  /** → completed, once; false when it had already completed. */
  markCompleted(sid: string, reason: string): boolean {
    const now = this.#now();
    return this.db.prepare("UPDATE conferences SET status = 'completed', end_reason = ?, ended_at = ?, updated_at = ? WHERE sid = ? AND status <> 'completed'")
      .run(reason, now, now, sid).changes === 1;
  }

  /** The conference's status callback is the first one given (markup or an added participant); false if it had one. */
  adoptStatusCallback(sid: string, url: string, method: 'GET' | 'POST'): boolean {
    return this.db.prepare('UPDATE conferences SET status_callback = ?, status_callback_method = ? WHERE sid = ? AND status_callback IS NULL')
      .run(url, method, sid).changes === 1;
  }

  /** The SequenceNumber of the conference's next status callback (1, 2, ...). */
  nextSequence(sid: string): number {
    return (this.db.prepare('UPDATE conferences SET sequence = sequence + 1 WHERE sid = ? RETURNING sequence').get(sid) as { sequence: number }).sequence;
  }

  addParticipant(p: NewParticipant): Participant {
    const now = this.#now();
    this.db.prepare(`INSERT INTO conference_participants (conference_sid, call_sid, account_id, status, muted, start_conference_on_enter,
        end_conference_on_exit, status_callback, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(p.conferenceSid, p.callSid, p.accountId, p.status ?? 'connecting', p.muted ? 1 : 0, p.startConferenceOnEnter ? 1 : 0,
        p.endConferenceOnExit ? 1 : 0, p.statusCallback, now, now);
    return this.participant(p.conferenceSid, p.callSid)!;
  }

  participant(conferenceSid: string, callSid: string): Participant | undefined {
    const row = this.db.prepare('SELECT * FROM conference_participants WHERE conference_sid = ? AND call_sid = ?').get(conferenceSid, callSid) as ParticipantRow | undefined;
    return row && toParticipant(row);
  }

  /** The conferences a call took part in (a call is in at most one at a time), oldest first. */
  participationsOfCall(callSid: string): Participant[] {
    return (this.db.prepare('SELECT * FROM conference_participants WHERE call_sid = ? ORDER BY id').all(callSid) as ParticipantRow[]).map(toParticipant);
  }

  /** In the order they were added. */
  participants(conferenceSid: string, opts: { openOnly?: boolean } = {}): Participant[] {
    const sql = `SELECT * FROM conference_participants WHERE conference_sid = ?${opts.openOnly ? " AND status <> 'completed'" : ''} ORDER BY id`;
    return (this.db.prepare(sql).all(conferenceSid) as ParticipantRow[]).map(toParticipant);
  }

  /** Open conferences created before `before` (ISO time) that have no participant connecting or in them. */
  emptySince(before: string): string[] {
    return this.db.prepare(`SELECT sid FROM conferences c WHERE status <> 'completed' AND created_at < ?
      AND NOT EXISTS (SELECT 1 FROM conference_participants p WHERE p.conference_sid = c.sid AND p.status <> 'completed')`).pluck().all(before) as string[];
  }

  /** Participants bridged into the room now (control legs are never participants). */
  countInProgress(conferenceSid: string): number {
    return (this.db.prepare("SELECT COUNT(*) AS n FROM conference_participants WHERE conference_sid = ? AND status = 'in-progress'").get(conferenceSid) as { n: number }).n;
  }

  updateParticipant(conferenceSid: string, callSid: string, changes: ParticipantChanges): Participant | undefined {
    const entries = Object.entries(changes).filter(([, v]) => v !== undefined) as Array<[keyof ParticipantChanges, unknown]>;
    if (entries.length > 0) {
      const sets = entries.map(([k]) => `${PARTICIPANT_COLUMNS[k]} = ?`).join(', ');
      const values = entries.map(([, v]) => (typeof v === 'boolean' ? (v ? 1 : 0) : v));
      this.db.prepare(`UPDATE conference_participants SET ${sets}, updated_at = ? WHERE conference_sid = ? AND call_sid = ?`)
        .run(...values, this.#now(), conferenceSid, callSid);
    }
    return this.participant(conferenceSid, callSid);
  }

  /** Moves a participant forward (connecting → in-progress → completed), never back; false when nothing changed. */
  setParticipantStatus(conferenceSid: string, callSid: string, status: Exclude<ParticipantStatus, 'connecting'>): boolean {
    const from = status === 'in-progress' ? "('connecting')" : "('connecting','in-progress')";
    return this.db.prepare(`UPDATE conference_participants SET status = ?, updated_at = ? WHERE conference_sid = ? AND call_sid = ? AND status IN ${from}`)
      .run(status, this.#now(), conferenceSid, callSid).changes === 1;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
