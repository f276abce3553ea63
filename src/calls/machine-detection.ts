// Answering-machine detection on an answered outbound call (POST /api/calls `machine_detection`, docs/speech.md): the
// callee's audio from the answer on goes through the detector (src/media/answering-machine.ts) before the call's
// document is asked for, as Twilio's synchronous AMD does. The result is the call's answered_by: stored, sent with
// the document request and the status callbacks after it, and on the call's timeline.
import { AUDIO_FRAME_MS, type AudioFrame, type AudioTap } from '../engine/port.js';
import { decodeUlaw } from '../media/mulaw.js';
import { MachineDetector, type AnsweredBy, type MachineDetectionSettings } from '../media/answering-machine.js';
import type { CallSession } from './session.js';

/**
 * How long past its own timeout detection may wait for audio that stopped coming (a tap that delivers no frames):
 * the detector counts time in frames, so without frames it would never time out.
 */
const NO_AUDIO_GRACE_MS = 2_000;

export async function detectMachine(session: CallSession, settings: MachineDetectionSettings): Promise<AnsweredBy> {
  const leg = session.leg;
  let tap: AudioTap | null = null;
  try {
    tap = leg ? await leg.openAudio({ mode: 'fork' }) : null;
  } catch (err) {
    session.log.warn({ err }, 'answering-machine detection could not hear the call');
  }
  const answeredBy = tap ? await listen(session, tap, settings) : 'unknown';
  await tap?.close();
  await session.services.store.calls.setAnsweredBy(session.sid, answeredBy);
  return answeredBy;
}

/** Feeds the tap's frames to a detector until it decides, the audio stops, or the guard runs out. */
function listen(session: CallSession, tap: AudioTap, settings: MachineDetectionSettings): Promise<AnsweredBy> {
  const { clock } = session.services;
  const detector = new MachineDetector(settings);
  let machine = false;
  let settled = false;
  return new Promise<AnsweredBy>((resolve) => {
    const done = (answeredBy: AnsweredBy, atMs: number | null) => {
      if (settled) return;
      settled = true;
      tap.off('frame', onFrame);
      clock.clearTimeout(guard);
      void session.timeline('machine-detection', { answered_by: answeredBy, after_ms: atMs });
      resolve(answeredBy);
    };
    // Audio that stops before a decision: nothing more will be heard.
    const unheard = () => done(machine ? 'machine_end_other' : 'unknown', null);
    // The callee's side: a fork that can only give the mix gives it as 'inbound' (nothing is played to the callee
    // while detection runs, so the mix is the callee).
    const onFrame = (frame: AudioFrame) => {
      if (frame.track !== 'inbound') return;
      heardMs += AUDIO_FRAME_MS;
      // The guard counts from the audio heard, not from the start: frames that arrive later than the clock (a busy
      // machine, a sandbox's fast test clock) still reach the detector's own timeout before the guard runs out.
      clock.clearTimeout(guard);
      guard = clock.setTimeout(unheard, Math.max(NO_AUDIO_GRACE_MS, settings.timeoutMs + NO_AUDIO_GRACE_MS - heardMs));
      for (const d of detector.push(decodeUlaw(frame.payload))) {
        if (d.final) done(d.answeredBy, d.atMs);
        else {
          machine = true;
          void session.timeline('machine-detection', { answered_by: d.answeredBy, after_ms: d.atMs, final: false });
        }
      }
    };
    let heardMs = 0;
    let guard = clock.setTimeout(unheard, settings.timeoutMs + NO_AUDIO_GRACE_MS);
    tap.on('frame', onFrame);
    void tap.closed.then(unheard);
  });
}
