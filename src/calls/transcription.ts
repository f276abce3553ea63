// A recording's transcript (<Record transcribe>, POST /api/recordings/{sid}/transcription; docs/speech.md): the
// kernel decides when and keeps it durable; the words come from a transcriber (src/speech). A message whose
// voicemail-left event waits for its words gets the event when the transcription ends, in the same transaction as
// the transcript; a control plane that dies meanwhile leaves it to a survivor, which sends the event without the
// words (src/recovery/reconcile.ts). Then the call's timeline and the transcribe callback.
import type { LifecycleEvents } from '../events/lifecycle.js';
import type { SqlQueries } from '../store/sql.js';
import type { RecordingRecord, TranscriptionResult } from '../store/recordings.js';
import type { CallServices } from './services.js';
import { recordingMediaUrl } from './recording-callback.js';

/** Turns a completed recording into words; rejects never: a failure is `{ error }`. */
export interface RecordingTranscriber {
  transcribe(recording: RecordingRecord): Promise<TranscriptionResult>;
}

export interface TranscribeCallback { url: string; method: 'POST' | 'GET' }

/** The message's voicemail-left event: `text` is its transcript, null when it has none. */
export async function emitVoicemailLeft(events: LifecycleEvents, rec: RecordingRecord, call: { from: string; to: string }, text: string | null, tx: SqlQueries): Promise<void> {
  await events.emit({
    type: 'voicemail-left', accountId: rec.accountId, callSid: rec.callSid,
    data: { from: call.from, to: call.to, recording_sid: rec.sid, duration: Math.round((rec.durationMs ?? 0) / 1000), source: rec.source, transcription_text: text },
  }, tx);
}

/** Ends a transcription started with startTranscription: the words (or why not) stored, announced, called back. */
export async function finishTranscription(services: CallServices, rec: RecordingRecord, transcriber: RecordingTranscriber, callback: TranscribeCallback | null): Promise<void> {
  const { store } = services;
  const started = Date.now();
  const result = await transcriber.transcribe(rec).catch((err: unknown): TranscriptionResult => ({ error: (err as Error).message }));
  const call = await store.calls.get(rec.callSid);
  const done = await store.sql.transaction(async (tx) => {
    const finished = await store.recordings.finishTranscription(rec.sid, result, tx);
    if (finished?.transcription?.holdsEvent && call) await emitVoicemailLeft(services.events, finished, call, 'text' in result ? result.text : null, tx);
    return finished;
  });
  if (!done) return;
  await store.calls.addTimeline(rec.callSid, 'transcription', {
    recording_sid: rec.sid, status: done.transcription!.status, ...('error' in result ? { error: result.error } : { characters: result.text.length }), took_ms: Date.now() - started,
  });
  if (callback) await sendTranscribeCallback(services, done, callback);
}

async function sendTranscribeCallback(services: CallServices, rec: RecordingRecord, callback: TranscribeCallback): Promise<void> {
  let outcome: Record<string, unknown>;
  try {
    const res = await services.http.send({
      accountId: rec.accountId, url: callback.url, method: callback.method, timeoutMs: 5_000, payload: {
        kind: 'form', body: {
          RecordingSid: rec.sid, RecordingUrl: recordingMediaUrl(services.publicBaseUrl, rec.sid), CallSid: rec.callSid,
          TranscriptionStatus: rec.transcription!.status, TranscriptionText: rec.transcription!.text ?? '',
        },
      },
    });
    outcome = { status: res.status, latency_ms: Math.round(res.latencyMs) };
  } catch (err) {
    outcome = { error: (err as Error).message };
  }
  await services.store.calls.addTimeline(rec.callSid, 'transcribe-callback', { url: callback.url, ...outcome });
}
