import type { GatherVerb, PromptVerb } from '../../markup/index.js';
import type { Prompt } from '../../engine/port.js';
import type { MediaLease } from '../../media/media-cache.js';
import { followAction, type Flow, type Outcome } from '../flow.js';
import { leaseMedia, localMedia } from '../../calls/media-lease.js';
import type { CallSession } from '../../calls/session.js';
import { gatherSpeech } from './gather-speech.js';

/** The prompts as the engine plays them; a Play whose media could not be had is left out. */
function toPrompts(prompts: PromptVerb[], leases: Array<MediaLease | null>): Prompt[] {
  return prompts.flatMap((p, i): Prompt[] => {
    if (p.verb === 'pause') return [{ kind: 'pause', seconds: p.length }];
    const lease = leases[i];
    if (p.verb === 'play' && !lease) return [];
    // Inside a Gather, loop="0" repeats until a key is pressed; 10 rounds is ample before the timeout applies.
    const times = p.loop === 0 ? 10 : p.loop;
    const one: Prompt = p.verb === 'say' ? { kind: 'say', text: p.text, voice: p.voice, language: p.language } : { kind: 'play', media: localMedia(lease!) };
    return Array.from({ length: times }, () => one);
  });
}

function leasePrompts(session: CallSession, prompts: PromptVerb[]): Promise<Array<MediaLease | null>> {
  return Promise.all(prompts.map((p) => (p.verb === 'play' ? leaseMedia(session, p.url) : null)));
}

/** Collects keys; with input, POSTs {digit, digits} to the action and runs the reply; without, falls through. */
export async function gatherVerb(flow: Flow, verb: GatherVerb): Promise<Outcome> {
  const { session } = flow;
  const { signal } = session.document;
  const [leg, leases] = await Promise.all([session.answer(), leasePrompts(session, verb.prompts)]);
  if (signal.aborted) {
    leases.forEach((lease) => lease?.release());
    return { kind: 'next' };
  }
  if (verb.speech && verb.input.includes('speech')) {
    try {
      return await gatherSpeech(flow, { ...verb, speech: verb.speech }, leg, toPrompts(verb.prompts, leases));
    } finally {
      leases.forEach((lease) => lease?.release());
    }
  }
  const result = await leg.collectDigits({
    prompts: toPrompts(verb.prompts, leases),
    ...(verb.numDigits !== undefined ? { numDigits: verb.numDigits } : {}),
    timeoutMs: verb.timeout * 1000,
    finishOnKey: verb.finishOnKey,
  }).finally(() => leases.forEach((lease) => lease?.release()));
  session.timeline('digits', { digits: result.digits, reason: result.reason });
  if (result.digits === '') return { kind: 'next' };
  return followAction(flow, 'gather action', verb.action ?? flow.docUrl, verb.method, { digit: result.digits[0], digits: result.digits, call_sid: session.sid });
}
