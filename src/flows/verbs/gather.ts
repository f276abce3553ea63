import type { GatherVerb, PromptVerb } from '../../markup/index.js';
import type { Prompt } from '../../engine/port.js';
import { followAction, type Flow, type Outcome } from '../flow.js';
import { readyPrompt, releasePrompts, type ReadyPrompt } from '../prompts.js';
import { gatherSpeech } from './gather-speech.js';

/** The prompts as the engine plays them; a Play whose media could not be had is left out. */
function toPrompts(prompts: PromptVerb[], ready: ReadyPrompt[]): Prompt[] {
  return prompts.flatMap((p, i): Prompt[] => {
    const one = ready[i]!.prompt;
    if (!one) return [];
    if (p.verb === 'pause') return [one];
    // Inside a Gather, loop="0" repeats until a key is pressed; 10 rounds is ample before the timeout applies.
    return Array.from({ length: p.loop === 0 ? 10 : p.loop }, () => one);
  });
}

/** Collects keys; with input, POSTs {digit, digits} to the action and runs the reply; without, falls through. */
export async function gatherVerb(flow: Flow, verb: GatherVerb): Promise<Outcome> {
  const { session } = flow;
  const { signal } = session.document;
  const [leg, ready] = await Promise.all([session.answer(), Promise.all(verb.prompts.map((p) => readyPrompt(session, p)))]);
  if (signal.aborted) {
    releasePrompts(ready);
    return { kind: 'next' };
  }
  if (verb.speech && verb.input.includes('speech')) {
    try {
      return await gatherSpeech(flow, { ...verb, speech: verb.speech }, leg, toPrompts(verb.prompts, ready));
    } finally {
      releasePrompts(ready);
    }
  }
  const result = await leg.collectDigits({
    prompts: toPrompts(verb.prompts, ready),
    ...(verb.numDigits !== undefined ? { numDigits: verb.numDigits } : {}),
    timeoutMs: verb.timeout * 1000,
    finishOnKey: verb.finishOnKey,
  }).finally(() => releasePrompts(ready));
  session.timeline('digits', { digits: result.digits, reason: result.reason });
  if (result.digits === '') return { kind: 'next' };
  return followAction(flow, 'gather action', verb.action ?? flow.docUrl, verb.method, { digit: result.digits[0], digits: result.digits, call_sid: session.sid });
}
