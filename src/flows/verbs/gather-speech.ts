// <Gather input="speech"> (and "dtmf speech"), Twilio's way: the prompts play while the caller's audio is heard
// (src/speech/listen.ts); speech stops them (barge-in) and the answer ends after the speech timeout's silence; the
// recognizer's words go to the action as speech_result with confidence. Keys, when taken, end the Gather as they do
// without speech. Nothing heard within the timeout after the prompts: the next verb, or the action with an empty
// result (actionOnEmptyResult). A recognizer that is missing, slow or failing gives the empty-result path, with the
// reason on the timeline: never a stuck call.
import type { GatherSpeech, GatherVerb } from '../../markup/index.js';
import type { CallLeg, CollectResult, Prompt } from '../../engine/port.js';
import { EngineError } from '../../engine/port.js';
import { listenForSpeech, type Heard, type Listening } from '../../speech/listen.js';
import { RecognizerError } from '../../speech/recognizer.js';
import { followAction, type Flow, type Outcome } from '../flow.js';

/** Silence that ends an answer under speechTimeout="auto". */
export const AUTO_SPEECH_END_MS = 1_000;
/** The longest answer heard (Twilio stops listening at 60 s). */
const MAX_SPEECH_MS = 60_000;
/** The longest a recognizer may take after the caller stops speaking. */
export const RECOGNITION_LIMIT_MS = 15_000;

type Answer = { kind: 'keys'; keys: CollectResult } | { kind: 'heard'; heard: Heard };

export async function gatherSpeech(flow: Flow, verb: GatherVerb & { speech: GatherSpeech }, leg: CallLeg, prompts: Prompt[]): Promise<Outcome> {
  const { session } = flow;
  const keysTaken = verb.input.includes('dtmf');
  let listening: Listening | null = null;
  try {
    const speechEndMs = verb.speech.speechTimeout === 'auto' ? AUTO_SPEECH_END_MS : verb.speech.speechTimeout * 1000;
    listening = await listenForSpeech(leg, { speechEndMs, maxSpeechMs: MAX_SPEECH_MS }, session.services.clock);
  } catch (err) {
    if (!(err instanceof EngineError)) throw err;
    session.timeline('speech-error', { reason: 'unavailable', message: `the call's audio could not be heard: ${err.message}` });
  }
  // The prompts, and the keys when they count, as any Gather; the collection's timeout is the wait for an answer.
  const collecting = leg.collectDigits({
    prompts, timeoutMs: verb.timeout * 1000, finishOnKey: keysTaken ? verb.finishOnKey : '',
    ...(keysTaken && verb.numDigits !== undefined ? { numDigits: verb.numDigits } : {}),
  });
  // Barge-in: speech stops the prompts, and the key collection with them.
  void listening?.started.then(() => leg.stopMedia());
  const first: Answer = await Promise.race([
    collecting.then((keys): Answer => ({ kind: 'keys', keys })),
    ...(listening ? [listening.heard.then((heard): Answer => ({ kind: 'heard', heard }))] : []),
  ]);
  // Speech stopped the collection (it ends at once); audio that went away leaves the keys to answer alone.
  const keys = first.kind === 'keys' ? first.keys : await collecting;
  const heard = first.kind === 'heard' ? first.heard : keys.reason === 'interrupted' && listening ? await listening.heard : null;
  await listening?.close();
  if (keysTaken && keys.digits !== '' && heard?.kind !== 'speech') {
    session.timeline('digits', { digits: keys.digits, reason: keys.reason });
    return followAction(flow, 'gather action', verb.action ?? flow.docUrl, verb.method, { digit: keys.digits[0], digits: keys.digits, call_sid: session.sid });
  }
  const said = heard?.kind === 'speech' ? await recognize(flow, verb.speech, heard.frames) : null;
  if (!said && !heard && !session.ended) session.timeline('speech-no-input', { timeout_seconds: verb.timeout });
  if (!said?.text && !verb.speech.actionOnEmptyResult) return { kind: 'next' };
  return followAction(flow, 'gather action', verb.action ?? flow.docUrl, verb.method, {
    speech_result: said?.text ?? '', confidence: said?.confidence ?? null, call_sid: session.sid,
  });
}

/** The recognizer's words, or null when it could not give any (the reason is on the timeline). */
async function recognize(flow: Flow, speech: GatherSpeech, frames: Buffer[]): Promise<{ text: string; confidence: number | null } | null> {
  const { session } = flow;
  const started = Date.now();
  const limit = AbortSignal.timeout(RECOGNITION_LIMIT_MS);
  try {
    const said = await flow.services.speech.recognize(session.accountId, {
      utterance: { frames }, language: speech.language, model: speech.speechModel ?? null, signal: limit,
      hints: speech.hints ? speech.hints.split(',').map((h) => h.trim()).filter(Boolean) : [],
    });
    session.timeline('speech', {
      recognizer: said.recognizer, text: said.text, confidence: said.confidence, heard_ms: frames.length * 20, recognized_ms: Date.now() - started,
    });
    return said;
  } catch (err) {
    if (!(err instanceof RecognizerError)) throw err;
    session.timeline('speech-error', { reason: err.reason, message: err.message, heard_ms: frames.length * 20 });
    session.log.warn({ reason: err.reason, message: err.message }, 'speech recognition failed');
    return null;
  }
}
