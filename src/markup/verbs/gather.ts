import { xmlFields, type Fields } from '../fields.js';
import type { GatherInput, GatherSpeech, GatherVerb, PromptVerb } from '../types.js';
import { EXPECT, isDtmfKey, isLanguageTag, isUrlReference, isVoiceName } from '../values.js';
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

const SPEECH_ATTRIBUTES = ['hints', 'language', 'speechTimeout', 'speechModel', 'actionOnEmptyResult'];

/** 'dtmf', 'speech' or both, each once, space-separated (Twilio's input). */
function isGatherInput(value: string): boolean {
  const parts = value.split(/\s+/);
  return parts.every((p) => p === 'dtmf' || p === 'speech') && new Set(parts).size === parts.length;
}

/** The speech attributes, or undefined when none is given. */
function speechSettings(f: Fields): GatherSpeech | undefined {
  if (!SPEECH_ATTRIBUTES.some((name) => f.has(name))) return undefined;
  const timeout = f.string('speechTimeout', { check: (v) => v === 'auto' || /^[1-9][0-9]?$/.test(v), expect: '"auto" or whole seconds from 1 to 99' });
  return compact({
    hints: f.string('hints', { check: isHints, expect: 'comma-separated words or phrases, up to 1000 characters' }),
    language: f.string('language', { check: isLanguageTag, expect: 'a language tag such as "en-US"' }) ?? 'en-US',
    speechTimeout: timeout === undefined || timeout === 'auto' ? 'auto' as const : Number(timeout),
    speechModel: f.string('speechModel', { check: isVoiceName, expect: 'a model name (1-64 letters, digits, ".", "_" or "-")' }),
    actionOnEmptyResult: f.bool('actionOnEmptyResult', false),
  });
}

/** Hints reach a recognizer's grammar: printable text on one line, bounded. */
function isHints(value: string): boolean {
  return value.length >= 1 && value.length <= 1000 && !/[\u0000-\u001f\u007f<>{}|*+=;\\]/.test(value);
}

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
    const input = f.string('input', { check: isGatherInput, expect: '"dtmf", "speech" or "dtmf speech"' })?.split(/\s+/) as GatherInput[] | undefined;
    const verb: GatherVerb = compact({
      verb: 'gather',
      action: f.string('action', { check: isUrlReference, expect: EXPECT.urlRef }),
      method: f.method(),
      input: input ?? ['dtmf'],
      numDigits: f.optionalInt('numDigits', 1, 64),
      timeout: f.int('timeout', 1, 600, 5),
      finishOnKey:
        f.string('finishOnKey', { allowEmpty: true, check: isDtmfKey, expect: 'one of 0-9, * or #, or "" to disable it' }) ?? '#',
      speech: speechSettings(f),
      prompts,
    });
    if (verb.speech && !verb.input.includes('speech')) {
      cx.issues.add('invalid_attribute', '<Gather> speech attributes (hints, language, speechTimeout, speechModel, actionOnEmptyResult) need input="speech" or input="dtmf speech"', el.pos ?? {});
    }
    if (!verb.speech && verb.input.includes('speech')) verb.speech = { language: 'en-US', speechTimeout: 'auto', actionOnEmptyResult: false };
    f.finish();
    return verb;
  },
};
