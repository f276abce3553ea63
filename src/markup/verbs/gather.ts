import { xmlFields } from '../fields.js';
import type { GatherVerb, PromptVerb } from '../types.js';
import { EXPECT, isDtmfKey, isUrlReference } from '../values.js';
import { compact, refuseChild, type VerbDef } from './define.js';
import { pause } from './pause.js';
import { play } from './play.js';
import { say } from './say.js';

/** A Map, not an object literal: element names such as "constructor" must not hit the prototype. */
const PROMPTS = new Map<string, VerbDef>([
  ['Say', say],
  ['Play', play],
  ['Pause', pause],
]);

/** XML only: the JSON subset never collects input (a JSON reply just connects the caller). */
export const gather: VerbDef = {
  xmlName: 'Gather',
  fromXml(el, cx) {
    const f = xmlFields(el, cx.issues);
    const prompts: PromptVerb[] = [];
    for (const child of el.children) {
      const def = PROMPTS.get(child.name);
      if (def) {
        cx.countVerb(child.pos ?? {});
        prompts.push(def.fromXml(child, cx) as PromptVerb);
      } else {
        refuseChild(el, child, cx.issues, 'may only contain <Say>, <Play> and <Pause>');
      }
    }
    const verb: GatherVerb = compact({
      verb: 'gather',
      action: f.string('action', { check: isUrlReference, expect: EXPECT.urlRef }),
      method: f.method(),
      numDigits: f.optionalInt('numDigits', 1, 64),
      timeout: f.int('timeout', 1, 600, 5),
      finishOnKey:
        f.string('finishOnKey', { allowEmpty: true, check: isDtmfKey, expect: 'one of 0-9, * or #, or "" to disable it' }) ?? '#',
      prompts,
    });
    f.finish();
    return verb;
  },
};
