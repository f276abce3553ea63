import type { RecordingRecord } from '../store/recordings.js';
import type { CallbackSink } from './status-callback.js';

export function recordingMediaUrl(baseUrl: string, sid: string): string {
  return `${baseUrl.replace(/\/$/, '')}/api/recordings/${sid}.wav`;
}

/** Tells the recording callback URL (number policy, markup or API request) that a recording is ready. */
export async function sendRecordingCallback(session: CallbackSink, rec: RecordingRecord, method: 'POST' | 'GET' = 'POST'): Promise<void> {
  if (!rec.callbackUrl) return;
  const payload = {
    RecordingSid: rec.sid,
    RecordingUrl: recordingMediaUrl(session.services.publicBaseUrl, rec.sid),
    RecordingStatus: rec.status,
    RecordingDuration: String(Math.round((rec.durationMs ?? 0) / 1000)),
    RecordingChannels: String(rec.channels),
    RecordingTracks: rec.tracks,
    RecordingSource: rec.source,
    CallSid: rec.callSid,
  };
  let outcome: Record<string, unknown>;
  try {
    const res = await session.services.http.send({
      accountId: rec.accountId, url: rec.callbackUrl, method, payload: { kind: 'form', body: payload }, timeoutMs: 5_000,
    });
    outcome = { status: res.status, latency_ms: Math.round(res.latencyMs) };
  } catch (err) {
    outcome = { error: (err as Error).message };
  }
  await session.timeline('recording-callback', { url: rec.callbackUrl, ...outcome });
}
