import type { RecordOptions } from '../engine/port.js';
import { newSid } from '../crypto/tokens.js';
import type { RecordingRecord } from '../store/recordings.js';
import type { CallSession } from './session.js';
import { sendRecordingCallback } from './recording-callback.js';
import { makePrivate } from '../private-files.js';
import { emitVoicemailLeft, finishTranscription, type RecordingTranscriber, type TranscribeCallback } from './transcription.js';

export interface MessageOptions {
  maxLengthMs: number;
  silenceTimeoutMs: number;
  finishOnKey: string;
  beep: boolean;
  source: 'record-verb' | 'voicemail';
  callbackUrl: string | null;
  callbackMethod?: 'POST' | 'GET';
  /** Transcribe the message: its voicemail-left event then waits for the words (src/calls/transcription.ts). */
  transcription?: { transcriber: RecordingTranscriber; callback: TranscribeCallback | null };
}

/** Records what the caller says (Record verb, voicemail), stores it, and announces it: callback and event. */
export async function recordMessage(session: CallSession, opts: MessageOptions): Promise<{ recording: RecordingRecord; finishKey?: string }> {
  const leg = await session.answer();
  const sid = newSid('RE');
  const file = session.recordingFile(sid);
  const { recordings } = session.services.store;
  await recordings.create({ sid, accountId: session.accountId, callSid: session.sid, source: opts.source, tracks: 'inbound', channels: 1, file, callbackUrl: opts.callbackUrl });
  const spec: RecordOptions = { file, maxLengthMs: opts.maxLengthMs, silenceTimeoutMs: opts.silenceTimeoutMs, finishOnKey: opts.finishOnKey, beep: opts.beep };
  const result = await leg.record(spec);
  makePrivate(file);
  // The stored message and its voicemail-left event commit together; with a transcription, the event's turn comes
  // when the words do, and the transcription under way commits with the message instead.
  const recording = await session.services.store.sql.transaction(async (tx) => {
    const done = await recordings.complete(sid, result.durationMs, 'completed', tx);
    if (opts.transcription) await recordings.startTranscription(sid, { holdsEvent: true }, tx);
    else await emitVoicemailLeft(session.services.events, done, session.call, null, tx);
    return done;
  });
  session.timeline('recording-completed', { recording_sid: sid, duration_ms: result.durationMs, reason: result.reason });
  await sendRecordingCallback(session, recording, opts.callbackMethod);
  // The caller goes on meanwhile (Twilio transcribes after the call moves on).
  const { transcription } = opts;
  if (transcription) {
    void finishTranscription(session.services, recording, transcription.transcriber, transcription.callback)
      .catch((err: unknown) => session.log.error({ err, recordingSid: sid }, 'transcription failed'));
  }
  return { recording, ...(result.finishKey ? { finishKey: result.finishKey } : {}) };
}
