import type { RecordVerb } from '../../markup/index.js';
import { followAction, resolveUrl, type Flow, type Outcome } from '../flow.js';
import { recordMessage } from '../../calls/record-message.js';
import { recordingMediaUrl } from '../../calls/recording-callback.js';
import { recordingTranscriber } from '../../speech/recording-transcriber.js';

export async function recordVerb(flow: Flow, verb: RecordVerb): Promise<Outcome> {
  const { session } = flow;
  if (session.document.signal.aborted) return { kind: 'next' };
  const callback = verb.recordingStatusCallback ? resolveUrl(flow, verb.recordingStatusCallback) : null;
  const transcribeUrl = verb.transcribeCallback ? resolveUrl(flow, verb.transcribeCallback) : null;
  const { recording, finishKey } = await recordMessage(session, {
    maxLengthMs: verb.maxLength * 1000, silenceTimeoutMs: verb.timeout * 1000, finishOnKey: verb.finishOnKey, beep: verb.playBeep,
    source: 'record-verb', callbackUrl: callback, callbackMethod: verb.recordingStatusCallbackMethod,
    ...(verb.transcribe ? {
      transcription: { transcriber: recordingTranscriber(flow.services.speech), callback: transcribeUrl ? { url: transcribeUrl, method: 'POST' as const } : null },
    } : {}),
  });
  // As in TwiML, no action means the current document hears about the recording.
  return followAction(flow, 'record action', verb.action ?? flow.docUrl, verb.method, {
    recording_sid: recording.sid,
    recording_url: recordingMediaUrl(session.services.publicBaseUrl, recording.sid),
    duration: Math.round((recording.durationMs ?? 0) / 1000),
    digits: finishKey ?? '',
    call_sid: session.sid,
  });
}
