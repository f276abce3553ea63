import type { CallRecord } from '../../store/calls.js';
import type { RecordingRecord } from '../../store/recordings.js';
import type { Store } from '../../repositories.js';
import { recordingMediaUrl } from '../../calls/recording-callback.js';

export function recordingView(r: RecordingRecord, baseUrl: string) {
  return {
    sid: r.sid, call_sid: r.callSid, conference_sid: r.conferenceSid, status: r.status, source: r.source, tracks: r.tracks, channels: r.channels,
    duration: r.durationMs === null ? null : Math.round(r.durationMs / 1000), immutable: r.immutable,
    created_at: r.createdAt, completed_at: r.completedAt, media_url: recordingMediaUrl(baseUrl, r.sid),
    transcription: r.transcription && { status: r.transcription.status, text: r.transcription.text, error: r.transcription.error },
  };
}

export async function callView(c: CallRecord, store: Store, baseUrl: string) {
  const recordings = await store.recordings.listForCall(c.sid);
  return {
    sid: c.sid, from: c.from, to: c.to, direction: c.direction, status: c.status,
    number: c.numberId === null ? null : ((await store.numbers.getById(c.numberId))?.e164 ?? null),
    trunk_id: c.trunkId, parent_call_sid: c.parentSid,
    created_at: c.createdAt, answered_at: c.answeredAt, ended_at: c.endedAt, duration: c.duration, hangup_cause: c.hangupCause, answered_by: c.answeredBy,
    recordings: recordings.map((r) => recordingView(r, baseUrl)),
  };
}
