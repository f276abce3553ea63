import type { PauseVerb, PlayVerb, SayVerb } from '../../markup/index.js';
import type { Flow, Outcome } from '../flow.js';
import { leaseMedia, localMedia } from '../../calls/media-lease.js';
import { sayPrompt } from '../../calls/voices.js';

// loop="0" means "until the call ends"; the cap keeps a runaway document bounded all the same.
const MAX_LOOPS = 1_000;
const loops = (n: number) => (n === 0 ? MAX_LOOPS : n);

// Each verb stops between loops once a redirect replaced its document (session.document); the engine's stopMedia
// ends the loop under way.
export async function sayVerb(flow: Flow, verb: SayVerb): Promise<Outcome> {
  const { signal } = flow.session.document;
  // A vendor voice's first render overlaps the answer, as a Play's fetch does.
  const [leg, { prompt, lease }] = await Promise.all([flow.session.answer(), sayPrompt(flow.session, verb)]);
  try {
    for (let i = 0; i < loops(verb.loop) && !leg.isEnded && !signal.aborted; i++) await leg.say(prompt.text, prompt);
  } finally {
    lease?.release();
  }
  return { kind: 'next' };
}

export async function playVerb(flow: Flow, verb: PlayVerb): Promise<Outcome> {
  const { signal } = flow.session.document;
  // The fetch overlaps the answer: a cold prompt costs one of the two, not both.
  const [leg, lease] = await Promise.all([flow.session.answer(), leaseMedia(flow.session, verb.url)]);
  if (!lease) return { kind: 'next' };
  try {
    for (let i = 0; i < loops(verb.loop) && !leg.isEnded && !signal.aborted; i++) await leg.play(localMedia(lease));
  } finally {
    lease.release();
  }
  return { kind: 'next' };
}

export async function pauseVerb(flow: Flow, verb: PauseVerb): Promise<Outcome> {
  const { signal } = flow.session.document;
  const leg = await flow.session.answer();
  if (!signal.aborted) await leg.pause(verb.length * 1000);
  return { kind: 'next' };
}
