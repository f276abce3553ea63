/**
 * Generated valid documents must parse back to exactly the verbs they were generated from, in
 * both dialects; damaged copies of them must still fail only with MarkupError.
 */
import { deepStrictEqual } from 'node:assert/strict';
import fc from 'fast-check';
import t from 'tap';
import { BUILT_IN_VOICES, MarkupError, parseMarkup, type DialTarget, type GatherInput, type MarkupFormat, type Verb } from '../../src/markup/index.js';
import { RING_TONE_NAMES } from '../../src/markup/ring-tones.js';

const RUNS = { numRuns: 300 };

function refusedOnlyWithMarkupError(doc: string, format: MarkupFormat): void {
  try {
    parseMarkup(doc, format);
  } catch (err) {
    if (!(err instanceof MarkupError)) throw new Error(`threw ${String(err)}`);
    const internal = err.issues.find((i) => i.code === 'internal_error');
    if (internal) throw new Error(internal.message);
  }
}

const tidy = (s: string): string => s.trim();
const text = fc
  .string({ unit: fc.constantFrom('a', 'Z', '1', ' ', '&', '<', '>', '"', "'", ']', 'é', '😀', '\n'), minLength: 1, maxLength: 30 })
  .map(tidy)
  .filter((s) => s.length > 0);
const credential = fc
  .string({ unit: fc.constantFrom('a', 'B', '7', ' ', '&', '<', '"', "'", '!'), minLength: 1, maxLength: 12 })
  .map(tidy)
  .filter((s) => s.length > 0);
const httpUrl = fc.oneof(fc.webUrl({ validSchemes: ['http', 'https'] }), fc.constantFrom('https://cdn.example.com/a.mp3?x=1&y=2'));
const urlRef = fc.oneof(httpUrl, fc.constantFrom('/next', 'menu.xml', '../a?b=1&c=2', '/x#frag'));
const method = fc.constantFrom('GET' as const, 'POST' as const);
const e164 = fc.stringMatching(/^\+[1-9][0-9]{1,14}$/);
const keys = fc.constantFrom('0', '5', '9', '*', '#');

const say = fc.record({
  verb: fc.constant('say' as const),
  text,
  voice: fc.constantFrom(...BUILT_IN_VOICES, 'Alice', 'MAN'),
  language: fc.constantFrom('en-US', 'en-GB', 'fr', 'de-DE', 'pt-BR'),
  loop: fc.integer({ min: 0, max: 100 }),
});
const play = fc.record({ verb: fc.constant('play' as const), url: httpUrl, loop: fc.integer({ min: 0, max: 100 }) });
const pause = fc.record({ verb: fc.constant('pause' as const), length: fc.integer({ min: 1, max: 600 }) });
const hangup = fc.constant({ verb: 'hangup' as const });
const target: fc.Arbitrary<DialTarget> = fc.oneof(
  fc.record({ type: fc.constant('number' as const), number: e164, sendDigits: fc.stringMatching(/^[0-9*#wW]{1,32}$/) }, { requiredKeys: ['type', 'number'] }),
  fc.record(
    { type: fc.constant('number' as const), number: e164, machineDetection: fc.constantFrom('Enable' as const, 'DetectMessageEnd' as const), machineDetectionTimeout: fc.integer({ min: 3, max: 59 }) },
    { requiredKeys: ['type', 'number', 'machineDetection'] },
  ),
  fc.record(
    {
      type: fc.constant('sip' as const),
      uri: fc.constantFrom('sip:bob@example.com', 'sips:pbx.example.com:5061;transport=tls', 'sip:+15551234567@10.0.0.1', 'sip:[2001:db8::2]'),
      username: credential,
      password: credential,
    },
    { requiredKeys: ['type', 'uri'] },
  ),
  fc.record({ type: fc.constant('client' as const), identity: fc.stringMatching(/^[A-Za-z0-9_.@-]{1,20}$/) }),
);
const dial = fc.record(
  {
    verb: fc.constant('dial' as const),
    callerId: e164,
    timeout: fc.integer({ min: 5, max: 600 }),
    action: urlRef,
    method,
    record: fc.constantFrom('do-not-record' as const, 'record-from-answer' as const, 'record-from-ringing' as const),
    ringTone: fc.constantFrom(...RING_TONE_NAMES),
    hangupOnStar: fc.boolean(),
    answerOnBridge: fc.boolean(),
    targets: fc.array(target, { minLength: 1, maxLength: 10 }),
  },
  { requiredKeys: ['verb', 'timeout', 'method', 'record', 'ringTone', 'hangupOnStar', 'answerOnBridge', 'targets'] },
);
const gatherSpeech = fc.record(
  {
    hints: fc.constantFrom('sales, support, billing', 'yes,no', "I'd like to pay"),
    language: fc.constantFrom('en-US', 'en-GB', 'de-DE'),
    speechTimeout: fc.oneof(fc.constant('auto' as const), fc.integer({ min: 1, max: 99 })),
    speechModel: fc.constantFrom('whisper-1', 'default', 'phone_call'),
    actionOnEmptyResult: fc.boolean(),
  },
  { requiredKeys: ['language', 'speechTimeout', 'actionOnEmptyResult'] },
);
/** Keys alone, or speech (alone or with keys) with its settings: the parser gives speech defaults whenever speech is heard. */
const gatherInput = fc.oneof(
  fc.record({ input: fc.constant<GatherInput[]>(['dtmf']) }),
  fc.record({ input: fc.constantFrom<GatherInput[]>(['speech'], ['dtmf', 'speech'], ['speech', 'dtmf']), speech: gatherSpeech }),
);
const gatherBase = fc.record(
  {
    verb: fc.constant('gather' as const),
    action: urlRef,
    method,
    numDigits: fc.integer({ min: 1, max: 64 }),
    timeout: fc.integer({ min: 1, max: 600 }),
    finishOnKey: fc.oneof(keys, fc.constant('')),
    prompts: fc.array(fc.oneof(say, play, pause), { maxLength: 4 }),
  },
  { requiredKeys: ['verb', 'method', 'timeout', 'finishOnKey', 'prompts'] },
);
const gather = fc.tuple(gatherBase, gatherInput).map(([g, listening]) => ({ ...g, ...listening }));
const record = fc.record(
  {
    verb: fc.constant('record' as const),
    action: urlRef,
    method,
    maxLength: fc.integer({ min: 1, max: 14400 }),
    timeout: fc.integer({ min: 1, max: 600 }),
    finishOnKey: fc.uniqueArray(keys, { maxLength: 5 }).map((k) => k.join('')),
    playBeep: fc.boolean(),
    recordingStatusCallback: urlRef,
    recordingStatusCallbackMethod: method,
    transcribe: fc.boolean(),
  },
  { requiredKeys: ['verb', 'method', 'maxLength', 'timeout', 'finishOnKey', 'playBeep', 'recordingStatusCallbackMethod', 'transcribe'] },
);
const redirect = fc.record({ verb: fc.constant('redirect' as const), url: urlRef, method });
const reject = fc.record({ verb: fc.constant('reject' as const), reason: fc.constantFrom('rejected' as const, 'busy' as const) });

const jsonVerbs: fc.Arbitrary<Verb[]> = fc.array(fc.oneof(say, play, pause, hangup, dial), { maxLength: 8 });
const xmlVerbs: fc.Arbitrary<Verb[]> = fc.array(fc.oneof(say, play, pause, hangup, dial, gather, record, redirect, reject), { maxLength: 8 });

const esc = (s: string): string =>
  s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;').replace(/'/g, '&apos;');

function element(name: string, props: object, body: string | undefined, omit: string[]): string {
  const attrs = Object.entries(props)
    .filter(([key]) => !omit.includes(key))
    .map(([key, value]) => ` ${key}="${esc(String(value))}"`)
    .join('');
  return body === undefined ? `<${name}${attrs}/>` : `<${name}${attrs}>${body}</${name}>`;
}

function targetXml(tg: DialTarget): string {
  if (tg.type === 'number') return element('Number', tg, esc(tg.number), ['type', 'number']);
  if (tg.type === 'sip') return element('Sip', tg, esc(tg.uri), ['type', 'uri']);
  if (tg.type === 'conference') return element('Conference', { ...tg, statusCallbackEvent: tg.statusCallbackEvent.join(' ') }, esc(tg.name), ['type', 'name']);
  if (tg.type === 'queue') return element('Queue', tg, esc(tg.name), ['type', 'name']);
  return element('Client', tg, esc(tg.identity), ['type', 'identity']);
}

function verbXml(v: Verb): string {
  const name = v.verb.charAt(0).toUpperCase() + v.verb.slice(1);
  switch (v.verb) {
    case 'say':
      return element(name, v, esc(v.text), ['verb', 'text']);
    case 'play':
    case 'redirect':
      return element(name, v, esc(v.url), ['verb', 'url']);
    case 'gather':
      return element(name, { ...v, input: v.input.join(' '), ...v.speech }, v.prompts.map(verbXml).join('\n    '), ['verb', 'prompts', 'speech']);
    case 'dial':
      return element(name, v, v.targets.map(targetXml).join(''), ['verb', 'targets']);
    default:
      return element(name, v, undefined, ['verb']);
  }
}

/** fast-check builds records without a prototype; the parser returns ordinary objects. */
const plain = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

const toXml = (verbs: Verb[]): string => `<?xml version="1.0" encoding="UTF-8"?>\n<Response>\n  ${verbs.map(verbXml).join('\n  <!-- next -->\n  ')}\n</Response>\n`;

t.test('round trip: generated XML documents', async (t) => {
  fc.assert(
    fc.property(xmlVerbs, (verbs) => {
      deepStrictEqual(parseMarkup(toXml(verbs), 'xml'), plain(verbs));
    }),
    RUNS,
  );
  t.pass('parsed back to the generated verbs');
});

t.test('round trip: generated JSON documents, and JSON agrees with XML', async (t) => {
  fc.assert(
    fc.property(jsonVerbs, (verbs) => {
      const fromJson = parseMarkup(JSON.stringify(verbs, null, 1), 'json');
      deepStrictEqual(fromJson, plain(verbs));
      deepStrictEqual(parseMarkup(toXml(verbs), 'xml'), fromJson);
    }),
    RUNS,
  );
  t.pass('parsed back to the generated verbs, identically from XML');
});

t.test('mutated valid documents still only fail with MarkupError', async (t) => {
  const mutation = fc.tuple(fc.nat(), fc.nat({ max: 8 }), fc.constantFrom('', '<', '>', '&', '"', '/', '<Say>', '</Dial>', '&#0;', 'x="1"', '\n'));
  fc.assert(
    fc.property(xmlVerbs, fc.array(mutation, { minLength: 1, maxLength: 4 }), (verbs, edits) => {
      let doc = toXml(verbs);
      for (const [at, cut, insert] of edits) {
        const i = at % (doc.length + 1);
        doc = doc.slice(0, i) + insert + doc.slice(i + cut);
      }
      refusedOnlyWithMarkupError(doc, 'xml');
      return true;
    }),
    RUNS,
  );
  fc.assert(
    fc.property(jsonVerbs, fc.array(mutation, { minLength: 1, maxLength: 4 }), (verbs, edits) => {
      let doc = JSON.stringify(verbs);
      for (const [at, cut, insert] of edits) {
        const i = at % (doc.length + 1);
        doc = doc.slice(0, i) + insert + doc.slice(i + cut);
      }
      refusedOnlyWithMarkupError(doc, 'json');
      return true;
    }),
    RUNS,
  );
  t.pass('only MarkupError');
});
