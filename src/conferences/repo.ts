// Conferences and their participants, on SQLite or PostgreSQL. State changes are conditional UPDATEs on the current
// status, so two paths racing to end a conference (the API and the last participant leaving) change it exactly once,
// on either backend and from any number of control planes.
import { rowLock, type SqlDb, type SqlQueries, type SqlValue } from '../store/sql.js';
import type { Clock } from '../clock.js';
import type { AnsweredBy } from '../media/answering-machine.js';

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
  /** What answered, when the participant was added with answering-machine detection; else null. */
  answeredBy: AnsweredBy | null;
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
  status_callback: string | null; answered_by: AnsweredBy | null; created_at: string; updated_at: string;
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
  statusCallback: r.status_callback, answeredBy: r.answered_by, createdAt: r.created_at, updatedAt: r.updated_at,
});

const PARTICIPANT_COLUMNS: Record<keyof ParticipantChanges, string> = {
  muted: 'muted', hold: 'hold', holdUrl: 'hold_url', coaching: 'coaching', callSidToCoach: 'call_sid_to_coach',
};

export interface ConferenceListFilter { status?: ConferenceStatus; friendlyName?: string; beforeId: number | null; limit: number }

export class ConferenceRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  async get(sid: string, q: SqlQueries = this.sql): Promise<Conference | undefined> {
    const row = await q.one<ConferenceRow>('SELECT * FROM conferences WHERE sid = ?', [sid]);
    return row && toConference(row);
  }

  async getForAccount(accountId: number, sid: string): Promise<Conference | undefined> {
    const c = await this.get(sid);
    return c && c.accountId === accountId ? c : undefined;
  }

  /** The account's conference of that name that has not completed, if any. */
  async openByName(accountId: number, friendlyName: string): Promise<Conference | undefined> {
    const row = await this.sql.one<ConferenceRow>("SELECT * FROM conferences WHERE account_id = ? AND friendly_name = ? AND status <> 'completed'",
      [accountId, friendlyName]);
    return row && toConference(row);
  }

  /**
   * The open conference of that name, created with `init` when there is none. The partial unique index on open
   * names decides between concurrent creators, on any node: the insert that loses does nothing (PostgreSQL makes
   * it wait for the winner's commit) and the loser reads the winner's conference. Should that one complete in
   * between, the name is free again and the creation is tried again.
   */
  async openOrCreate(c: NewConference): Promise<{ conference: Conference; created: boolean }> {
    for (;;) {
      const now = this.#now();
      const inserted = await this.sql.one<ConferenceRow>(`INSERT INTO conferences (sid, account_id, friendly_name, status, record, max_participants, status_callback,
          status_callback_method, status_callback_events, created_at, updated_at)
        VALUES (?, ?, ?, 'init', ?, ?, ?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *`,
      [c.sid, c.accountId, c.friendlyName, c.record ? 1 : 0, c.maxParticipants, c.statusCallback, c.statusCallbackMethod,
        c.statusCallbackEvents.join(' '), now, now]);
      if (inserted) return { conference: toConference(inserted), created: true };
      const open = await this.openByName(c.accountId, c.friendlyName);
      if (open) return { conference: open, created: false };
    }
  }

  /** Newest first; `beforeId` is the cursor (the id the previous page ended on). */
  async list(accountId: number, f: ConferenceListFilter): Promise<Conference[]> {
    const where = ['account_id = ?'];
    const args: SqlValue[] = [accountId];
    if (f.status) { where.push('status = ?'); args.push(f.status); }
    if (f.friendlyName !== undefined) { where.push('friendly_name = ?'); args.push(f.friendlyName); }
    if (f.beforeId !== null) { where.push('id < ?'); args.push(f.beforeId); }
    return (await this.sql.all<ConferenceRow>(`SELECT * FROM conferences WHERE ${where.join(' AND ')} ORDER BY id DESC LIMIT ?`, [...args, f.limit]))
      .map(toConference);
  }

  /** init → in-progress; false when it had already started or ended. */
  /** The media server agreed for the room (RoomPlacement): `proposed` when none is recorded or it replaces `unreachable`. */
  async placeRoom(sid: string, proposed: string, unreachable: string | null): Promise<string> {
    await this.sql.run('UPDATE conferences SET media_server = ? WHERE sid = ? AND (media_server IS NULL OR media_server = ?)', [proposed, sid, unreachable]);
    const row = await this.sql.one<{ media_server: string | null }>('SELECT media_server FROM conferences WHERE sid = ?', [sid]);
    return row?.media_server ?? proposed;
  }

  async markStarted(sid: string, q: SqlQueries = this.sql): Promise<boolean> {
    const now = this.#now();
    return (await q.run("UPDATE conferences SET status = 'in-progress', started_at = ?, updated_at = ? WHERE sid = ? AND status = 'init'", [now, now, sid])).changes === 1;
  }

  /** → completed, once; false when it had already completed. */
  async markCompleted(sid: string, reason: string, q: SqlQueries = this.sql): Promise<boolean> {
    const now = this.#now();
    return (await q.run("UPDATE conferences SET status = 'completed', end_reason = ?, ended_at = ?, updated_at = ? WHERE sid = ? AND status <> 'completed'",
      [reason, now, now, sid])).changes === 1;
  }

  /** The conference's status callback is the first one given (markup or an added participant); false if it had one. */
  async adoptStatusCallback(sid: string, url: string, method: 'GET' | 'POST'): Promise<boolean> {
    return (await this.sql.run('UPDATE conferences SET status_callback = ?, status_callback_method = ? WHERE sid = ? AND status_callback IS NULL',
      [url, method, sid])).changes === 1;
  }

  /** The SequenceNumber of the conference's next status callback (1, 2, ...): the update locks the row until commit. */
  async nextSequence(sid: string, q: SqlQueries = this.sql): Promise<number> {
    return (await q.one<{ sequence: number }>('UPDATE conferences SET sequence = sequence + 1 WHERE sid = ? RETURNING sequence', [sid]))!.sequence;
  }

  async addParticipant(p: NewParticipant, q: SqlQueries = this.sql): Promise<Participant> {
    const now = this.#now();
    const row = await q.one<ParticipantRow>(`INSERT INTO conference_participants (conference_sid, call_sid, account_id, status, muted, start_conference_on_enter,
        end_conference_on_exit, status_callback, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [p.conferenceSid, p.callSid, p.accountId, p.status ?? 'connecting', p.muted ? 1 : 0, p.startConferenceOnEnter ? 1 : 0,
      p.endConferenceOnExit ? 1 : 0, p.statusCallback, now, now]);
    return toParticipant(row!);
  }

  /**
   * Adds the participant unless `max` are already bridged in: counted and added with the conference's row locked,
   * so joiners on several nodes are counted one after the other. Null when the conference is full.
   */
  async addParticipantIfRoom(p: NewParticipant, max: number): Promise<Participant | null> {
    return this.sql.transaction(async (tx) => {
      await tx.one(`SELECT id FROM conferences WHERE sid = ?${rowLock(tx)}`, [p.conferenceSid]);
      if (await this.countInProgress(p.conferenceSid, tx) >= max) return null;
      return this.addParticipant(p, tx);
    });
  }

  async participant(conferenceSid: string, callSid: string, q: SqlQueries = this.sql): Promise<Participant | undefined> {
    const row = await q.one<ParticipantRow>('SELECT * FROM conference_participants WHERE conference_sid = ? AND call_sid = ?', [conferenceSid, callSid]);
    return row && toParticipant(row);
  }

  /** The conferences a call took part in (a call is in at most one at a time), oldest first. */
  async participationsOfCall(callSid: string, q: SqlQueries = this.sql): Promise<Participant[]> {
    return (await q.all<ParticipantRow>('SELECT * FROM conference_participants WHERE call_sid = ? ORDER BY id', [callSid])).map(toParticipant);
  }

  /** In the order they were added. */
  async participants(conferenceSid: string, opts: { openOnly?: boolean } = {}, q: SqlQueries = this.sql): Promise<Participant[]> {
    const sql = `SELECT * FROM conference_participants WHERE conference_sid = ?${opts.openOnly ? " AND status <> 'completed'" : ''} ORDER BY id`;
    return (await q.all<ParticipantRow>(sql, [conferenceSid])).map(toParticipant);
  }

  /** Open conferences created before `before` (ISO time) that have no participant connecting or in them. */
  async emptySince(before: string): Promise<string[]> {
    return (await this.sql.all<{ sid: string }>(`SELECT sid FROM conferences c WHERE status <> 'completed' AND created_at < ?
      AND NOT EXISTS (SELECT 1 FROM conference_participants p WHERE p.conference_sid = c.sid AND p.status <> 'completed') ORDER BY id`, [before]))
      .map((r) => r.sid);
  }

  /** Participants bridged into the room now (control legs are never participants). */
  async countInProgress(conferenceSid: string, q: SqlQueries = this.sql): Promise<number> {
    return (await q.one<{ n: number }>("SELECT COUNT(*) AS n FROM conference_participants WHERE conference_sid = ? AND status = 'in-progress'", [conferenceSid]))!.n;
  }

  /**
   * Applies `changes` to the participant, its row locked from the read to the write, so two concurrent changes
   * (on any node) each see the state the other left: `before` is what this change changed.
   */
  async updateParticipant(conferenceSid: string, callSid: string, changes: ParticipantChanges): Promise<{ before: Participant; after: Participant } | undefined> {
    const entries = Object.entries(changes).filter(([, v]) => v !== undefined) as Array<[keyof ParticipantChanges, unknown]>;
    return this.sql.transaction(async (tx) => {
      const row = await tx.one<ParticipantRow>(`SELECT * FROM conference_participants WHERE conference_sid = ? AND call_sid = ?${rowLock(tx)}`, [conferenceSid, callSid]);
      if (!row) return undefined;
      if (entries.length === 0) return { before: toParticipant(row), after: toParticipant(row) };
      const sets = entries.map(([k]) => `${PARTICIPANT_COLUMNS[k]} = ?`).join(', ');
      const values = entries.map(([, v]) => (typeof v === 'boolean' ? (v ? 1 : 0) : v) as SqlValue);
      const after = await tx.one<ParticipantRow>(`UPDATE conference_participants SET ${sets}, updated_at = ? WHERE conference_sid = ? AND call_sid = ? RETURNING *`,
        [...values, this.#now(), conferenceSid, callSid]);
      return { before: toParticipant(row), after: toParticipant(after!) };
    });
  }

  /** Moves a participant forward (connecting → in-progress → completed), never back; false when nothing changed. */
  async setParticipantStatus(conferenceSid: string, callSid: string, status: Exclude<ParticipantStatus, 'connecting'>, q: SqlQueries = this.sql): Promise<boolean> {
    const from = status === 'in-progress' ? "('connecting')" : "('connecting','in-progress')";
    return (await q.run(`UPDATE conference_participants SET status = ?, updated_at = ? WHERE conference_sid = ? AND call_sid = ? AND status IN ${from}`,
      [status, this.#now(), conferenceSid, callSid])).changes === 1;
  }

  async setAnsweredBy(conferenceSid: string, callSid: string, answeredBy: AnsweredBy): Promise<void> {
    await this.sql.run('UPDATE conference_participants SET answered_by = ?, updated_at = ? WHERE conference_sid = ? AND call_sid = ?', [answeredBy, this.#now(), conferenceSid, callSid]);
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
