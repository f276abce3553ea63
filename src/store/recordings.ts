import type { SqlDb, SqlQueries } from './sql.js';
import type { Clock } from '../clock.js';

export type RecordingSource = 'call' | 'record-verb' | 'voicemail' | 'dial' | 'conference';
/** `absent`: stopped with no audio caught (duration 0, an empty WAV). */
export type RecordingStatus = 'in-progress' | 'paused' | 'completed' | 'absent' | 'failed';

export interface RecordingRecord {
  sid: string;
  accountId: number;
  callSid: string;
  source: RecordingSource;
  status: RecordingStatus;
  tracks: 'inbound' | 'outbound' | 'both';
  channels: number;
  file: string;
  durationMs: number | null;
  callbackUrl: string | null;
  /** The number's policy locks it: the API and markup cannot pause or stop it. */
  immutable: boolean;
  /** A conference recording (the room's mix); `callSid` is then the participant whose join started it. */
  conferenceSid: string | null;
  /** Its transcript, once one was asked for (src/calls/transcription.ts); else null. */
  transcription: Transcription | null;
  createdAt: string;
  completedAt: string | null;
}

export type Transcription = (
  | { status: 'in-progress'; text: null; error: null }
  | { status: 'completed'; text: string; error: null }
  | { status: 'failed'; text: null; error: string }
) & {
  /** The recording's voicemail-left event waits for the words (sent when the transcription ends). */
  holdsEvent: boolean;
};

/** How a transcription ended: the words, or why there are none. */
export type TranscriptionResult = { text: string } | { error: string };

interface Row {
  sid: string; account_id: number; call_sid: string; source: RecordingSource; status: RecordingStatus; tracks: RecordingRecord['tracks'];
  channels: number; file: string; duration_ms: number | null; callback_url: string | null; created_at: string; completed_at: string | null;
  immutable: number;
  conference_sid: string | null;
  transcription_status: Transcription['status'] | null; transcription_text: string | null; transcription_error: string | null;
  transcription_holds_event: number;
}

const toRecording = (r: Row): RecordingRecord => ({
  sid: r.sid, accountId: r.account_id, callSid: r.call_sid, source: r.source, status: r.status, tracks: r.tracks, channels: r.channels,
  file: r.file, durationMs: r.duration_ms, callbackUrl: r.callback_url, immutable: r.immutable === 1, conferenceSid: r.conference_sid,
  transcription: r.transcription_status === null ? null : { status: r.transcription_status, text: r.transcription_text, error: r.transcription_error, holdsEvent: r.transcription_holds_event === 1 } as Transcription, createdAt: r.created_at, completedAt: r.completed_at,
});

export class RecordingRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock, private readonly owner: string) {}

  async create(r: Pick<RecordingRecord, 'sid' | 'accountId' | 'callSid' | 'source' | 'tracks' | 'channels' | 'file' | 'callbackUrl'> & { immutable?: boolean; conferenceSid?: string }): Promise<RecordingRecord> {
    const row = await this.sql.one<Row>(`INSERT INTO recordings (sid, account_id, call_sid, source, status, tracks, channels, file, callback_url, immutable, created_at, owner, conference_sid)
                     VALUES (?, ?, ?, ?, 'in-progress', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
    [r.sid, r.accountId, r.callSid, r.source, r.tracks, r.channels, r.file, r.callbackUrl, r.immutable ? 1 : 0, this.#now(), this.owner, r.conferenceSid ?? null]);
    return toRecording(row!);
  }

  async get(sid: string): Promise<RecordingRecord | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM recordings WHERE sid = ?', [sid]);
    return row && toRecording(row);
  }

  async getForAccount(accountId: number, sid: string): Promise<RecordingRecord | undefined> {
    const r = await this.get(sid);
    return r && r.accountId === accountId ? r : undefined;
  }

  async listForCall(callSid: string): Promise<RecordingRecord[]> {
    return (await this.sql.all<Row>('SELECT * FROM recordings WHERE call_sid = ? ORDER BY created_at, sid', [callSid])).map(toRecording);
  }

  async listForConference(conferenceSid: string): Promise<RecordingRecord[]> {
    return (await this.sql.all<Row>('SELECT * FROM recordings WHERE conference_sid = ? ORDER BY created_at, sid', [conferenceSid])).map(toRecording);
  }

  async setStatus(sid: string, status: RecordingStatus): Promise<void> {
    await this.sql.run('UPDATE recordings SET status = ? WHERE sid = ?', [status, sid]);
  }

  /** Finishes a recording once: one already finished keeps its status, duration and `completed_at`. */
  async complete(sid: string, durationMs: number, status: 'completed' | 'absent' = 'completed', q: SqlQueries = this.sql): Promise<RecordingRecord> {
    await q.run("UPDATE recordings SET status = ?, duration_ms = ?, completed_at = ? WHERE sid = ? AND status IN ('in-progress', 'paused')",
      [status, durationMs, this.#now(), sid]);
    return toRecording((await q.one<Row>('SELECT * FROM recordings WHERE sid = ?', [sid]))!);
  }

  /** The owners (instance ids; null for rows older than instances) of recordings still open or being transcribed. */
  async openOwners(): Promise<Array<string | null>> {
    return (await this.sql.all<{ owner: string | null }>("SELECT DISTINCT owner FROM recordings WHERE status IN ('in-progress', 'paused') OR transcription_status = 'in-progress'"))
      .map((r) => r.owner);
  }

  /**
   * Starts a completed recording's transcription; false when it is not completed, or one is under way. This
   * process transcribes it: the row becomes this instance's, so a survivor finishes it should the process die.
   */
  async startTranscription(sid: string, opts: { holdsEvent: boolean }, q: SqlQueries = this.sql): Promise<boolean> {
    return (await q.run(`UPDATE recordings SET transcription_status = 'in-progress', transcription_text = NULL, transcription_error = NULL,
      transcription_holds_event = ?, owner = ? WHERE sid = ? AND status = 'completed' AND (transcription_status IS NULL OR transcription_status <> 'in-progress')`,
    [opts.holdsEvent ? 1 : 0, this.owner, sid])).changes === 1;
  }

  /** Ends a transcription under way, once; null when none was (another process ended it). */
  async finishTranscription(sid: string, result: TranscriptionResult, q: SqlQueries = this.sql): Promise<RecordingRecord | null> {
    const row = await q.one<Row>(`UPDATE recordings SET transcription_status = ?, transcription_text = ?, transcription_error = ?
      WHERE sid = ? AND transcription_status = 'in-progress' RETURNING *`,
    ['text' in result ? 'completed' : 'failed', 'text' in result ? result.text : null, 'error' in result ? result.error : null, sid]);
    return row ? toRecording(row) : null;
  }

  /** The transcriptions `owner` left under way. */
  async transcribingOf(owner: string | null): Promise<RecordingRecord[]> {
    const rows = owner === null
      ? await this.sql.all<Row>("SELECT * FROM recordings WHERE transcription_status = 'in-progress' AND owner IS NULL ORDER BY created_at, sid")
      : await this.sql.all<Row>("SELECT * FROM recordings WHERE transcription_status = 'in-progress' AND owner = ? ORDER BY created_at, sid", [owner]);
    return rows.map(toRecording);
  }

  /** The recordings `owner` (null: no owner recorded) left open, oldest first. */
  async openOf(owner: string | null): Promise<RecordingRecord[]> {
    const rows = owner === null
      ? await this.sql.all<Row>("SELECT * FROM recordings WHERE status IN ('in-progress', 'paused') AND owner IS NULL ORDER BY created_at, sid")
      : await this.sql.all<Row>("SELECT * FROM recordings WHERE status IN ('in-progress', 'paused') AND owner = ? ORDER BY created_at, sid", [owner]);
    return rows.map(toRecording);
  }

  /**
   * Closes a recording a dead instance left open, at `completedAt`: completed with the audio found, or failed
   * without any. Null when it was no longer open (another survivor closed it first).
   */
  async closeLost(sid: string, durationMs: number | null, completedAt: string): Promise<RecordingRecord | null> {
    const row = await this.sql.one<Row>(`UPDATE recordings SET status = ?, duration_ms = ?, completed_at = ? WHERE sid = ? AND status IN ('in-progress', 'paused') RETURNING *`,
      [durationMs === null ? 'failed' : 'completed', durationMs, completedAt, sid]);
    return row ? toRecording(row) : null;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
