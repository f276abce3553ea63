// Listening for a caller's spoken answer (a speech <Gather>): a fork of the call's audio that hears the caller alone
// (not the prompts), cut into an utterance by the endpointer. `started` resolves when the caller begins to speak, so
// that the prompts stop (barge-in); `heard` with what was said, or `closed` when the audio went away or the
// listening was closed before an answer ended.
import type { Clock } from '../clock.js';
import type { AudioFrame, AudioTap, CallLeg } from '../engine/port.js';
import { SpeechEndpointer, type Endpoint, type EndpointSettings } from './endpointer.js';

export type Heard = ({ kind: 'speech' } & Endpoint) | { kind: 'closed' };

export interface Listening {
  readonly started: Promise<void>;
  readonly heard: Promise<Heard>;
  close(): Promise<void>;
}

/** Past the longest answer, how long audio may fail to come before the listening gives up on it. */
const NO_AUDIO_GRACE_MS = 2_000;

export async function listenForSpeech(leg: CallLeg, settings: EndpointSettings, clock: Clock): Promise<Listening> {
  const tap: AudioTap = await leg.openAudio({ mode: 'fork', callerOnly: true });
  const endpointer = new SpeechEndpointer(settings);
  let onStart!: () => void;
  const started = new Promise<void>((resolve) => { onStart = resolve; });
  let settle!: (heard: Heard) => void;
  const heard = new Promise<Heard>((resolve) => { settle = resolve; });
  let guard: ReturnType<Clock['setTimeout']> | undefined;
  const onFrame = (frame: AudioFrame) => {
    if (frame.track !== 'inbound') return;
    const { endpoint, started: began } = endpointer.push(frame.payload);
    if (began) {
      onStart();
      // Before speech, the Gather's timeout bounds the wait; from here, the longest answer does.
      guard = clock.setTimeout(() => settle({ kind: 'closed' }), settings.maxSpeechMs + NO_AUDIO_GRACE_MS);
    }
    if (endpoint) settle({ kind: 'speech', ...endpoint });
  };
  tap.on('frame', onFrame);
  void tap.closed.then(() => settle({ kind: 'closed' }));
  void heard.then(() => {
    if (guard) clock.clearTimeout(guard);
    tap.off('frame', onFrame);
  });
  return {
    started,
    heard,
    close: async () => {
      settle({ kind: 'closed' });
      await tap.close();
    },
  };
}
