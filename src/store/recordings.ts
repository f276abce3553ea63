import type { Db } from './db.js';
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
  createdAt: string;
  completedAt: string | null;
}

interface Row {
  sid: string; account_id: number; call_sid: string; source: RecordingSource; status: RecordingStatus; tracks: RecordingRecord['tracks'];
  channels: number; file: string; duration_ms: number | null; callback_url: string | null; created_at: string; completed_at: string | null;
  immutable: number;
  conference_sid: string | null;
}

const toRecording = (r: Row): RecordingRecord => ({
  sid: r.sid, accountId: r.account_id, callSid: r.call_sid, source: r.source, status: r.status, tracks: r.tracks, channels: r.channels,
  file: r.file, durationMs: r.duration_ms, callbackUrl: r.callback_url, immutable: r.immutable === 1, conferenceSid: r.conference_sid, createdAt: r.created_at, completedAt: r.completed_at,
});

export class RecordingRepo {
  constructor(private readonly db: Db, private readonly clock: Clock, private readonly owner: string) {}

  create(r: Pick<RecordingRecord, 'sid' | 'accountId' | 'callSid' | 'source' | 'tracks' | 'channels' | 'file' | 'callbackUrl'> & { immutable?: boolean; conferenceSid?: string }): RecordingRecord {
    this.db.prepare(`INSERT INTO recordings (sid, account_id, call_sid, source, status, tracks, channels, file, callback_url, immutable, created_at, owner, conference_sid)
                     VALUES (?, ?, ?, ?, 'in-progress', ?, ?, ?, ?, ?, ?, ?, ?)`)
      .run(r.sid, r.accountId, r.callSid, r.source, r.tracks, r.channels, r.file, r.callbackUrl, r.immutable ? 1 : 0, this.#now(), this.owner, r.conferenceSid ?? null);
    return this.get(r.sid)!;
  }

  get(sid: string): RecordingRecord | undefined {
    const row = this.db.prepare('SELECT * FROM recordings WHERE sid = ?').get(sid) as Row | undefined;
    return row && toRecording(row);
  }

  getForAccount(accountId: number, sid: string): RecordingRecord | undefined {
    const r = this.get(sid);
    return r && r.accountId === accountId ? r : undefined;
  }

  listForCall(callSid: string): RecordingRecord[] {
    return (this.db.prepare('SELECT * FROM recordings WHERE call_sid = ? ORDER BY created_at, sid').all(callSid) as Row[]).map(toRecording);
  }

  listForConference(conferenceSid: string): RecordingRecord[] {
    return (this.db.prepare('SELECT * FROM recordings WHERE conference_sid = ? ORDER BY created_at, sid').all(conferenceSid) as Row[]).map(toRecording);
  }

  setStatus(sid: string, status: RecordingStatus): void {
    this.db.prepare('UPDATE recordings SET status = ? WHERE sid = ?').run(status, sid);
  }

  /** Finishes a recording once: one already finished keeps its status, duration and `completed_at`. */
  complete(sid: string, durationMs: number, status: 'completed' | 'absent' = 'completed'): RecordingRecord {
    this.db.prepare("UPDATE recordings SET status = ?, duration_ms = ?, completed_at = ? WHERE sid = ? AND status IN ('in-progress', 'paused')")
      .run(status, durationMs, this.#now(), sid);
    return this.get(sid)!;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
