/**
 * Whatever arrives from a customer's webhook, the parser must answer with verbs or a MarkupError:
 * never another exception type, never an undocumented code, never a position outside the text.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import t from 'tap';
import { MarkupError, parseMarkup, type MarkupFormat, type Verb } from '../../src/markup/index.js';

const RUNS = { numRuns: 300 };

const docs = readFileSync(fileURLToPath(new URL('../../docs/markup.md', import.meta.url)), 'utf8');
const DOCUMENTED = new Set([...docs.matchAll(/^\| `([a-z_]+)`(?: \/ `([a-z_]+)`)?/gm)].flatMap((m) => [m[1], m[2]]));

/** Problems with the input as a whole rather than with a place in it. */
const UNPLACED = new Set(['too_large', 'invalid_encoding', 'too_many_issues']);

/** Parses and checks the failure contract; returns the verbs or undefined if refused. */
function attempt(input: string | Buffer, format: MarkupFormat): Verb[] | undefined {
  let verbs: Verb[];
  try {
    verbs = parseMarkup(input, format);
  } catch (err) {
    if (!(err instanceof MarkupError)) throw new Error(`threw ${String(err)}`);
    if (err.issues.length === 0) throw new Error('MarkupError without issues');
    const text = typeof input === 'string' ? input : input.toString('utf8');
    const lines = text.split('\n').length;
    for (const issue of err.issues) {
      if (!DOCUMENTED.has(issue.code) || issue.code === 'internal_error') throw new Error(`code ${issue.code}: ${issue.message}`);
      if (format === 'xml' && issue.line === undefined && !UNPLACED.has(issue.code)) throw new Error(`no position: ${issue.code} ${issue.message}`);
      if (issue.line !== undefined && (issue.line < 1 || issue.line > lines || (issue.column ?? 0) < 1)) {
        throw new Error(`position ${issue.line}:${issue.column} outside a ${lines}-line document`);
      }
    }
    return undefined;
  }
  if (!Array.isArray(verbs)) throw new Error('did not return an array');
  return verbs;
}

const bothFormats = (input: string | Buffer): boolean => {
  attempt(input, 'xml');
  attempt(input, 'json');
  return true;
};

t.test('arbitrary strings and bytes', async (t) => {
  fc.assert(fc.property(fc.string({ unit: 'binary', maxLength: 300 }), bothFormats), RUNS);
  fc.assert(fc.property(fc.uint8Array({ maxLength: 300 }), (bytes) => bothFormats(Buffer.from(bytes))), RUNS);
  t.pass('only MarkupError');
});

const XML_PIECES = [
  '<Response>', '</Response>', '<Response/>', '<Say>', '</Say>', '<Say loop="2" voice="alice">', '<Play>', '</Play>',
  'https://a.example/x.mp3', '<Gather numDigits="3" finishOnKey="">', '</Gather>', '<Dial>', '</Dial>', '<Number>',
  '</Number>', '<Sip username="u">', '</Sip>', 'sip:a@b.example', '<Client>', '</Client>', '+15551234567', 'hello',
  '&amp;', '&foo;', '&#0;', '&#x41;', '&#99999999;', '&', '<!--', '-->', '<![CDATA[', ']]>', '<?xml version="1.0"?>',
  '<!DOCTYPE x>', '<!ENTITY', '<!', '/>', '<', '>', '</', '"', "'", '=', ' ', '\n', '<Hangup/>', '<Pause length="0"/>',
  '<constructor/>', '__proto__="1"', ' loop="1"', '<Conference>', '<Record playBeep="true"/>', '<Redirect>/x</Redirect>',
  '<a:b>', '\u0000', '\ufeff', '😀',
];

t.test('XML-ish strings built from fragments', async (t) => {
  const arb = fc.array(fc.constantFrom(...XML_PIECES), { maxLength: 40 }).map((parts) => parts.join(''));
  fc.assert(fc.property(arb, (text) => (attempt(text, 'xml'), true)), RUNS);
  const wrapped = arb.map((inner) => `<Response>${inner}</Response>`);
  fc.assert(fc.property(wrapped, (text) => (attempt(text, 'xml'), true)), RUNS);
  t.pass('only MarkupError');
});

const JSON_PIECES = ['[', ']', '{', '}', ':', ',', '"verb"', '"say"', '"text"', '"hi"', '"dial"', '"targets"', '"type"', '"number"',
  '"+15551234567"', '"loop"', '1', '-0.5e3', 'true', 'null', ' ', '\n', '"\\u0000"', '"\\x"', '"', '\\', '"__proto__"'];

t.test('arbitrary JSON values and JSON-ish strings', async (t) => {
  fc.assert(fc.property(fc.jsonValue({ maxDepth: 6 }), (value) => bothFormats(JSON.stringify(value))), RUNS);
  const verbish = fc.array(
    fc.dictionary(fc.constantFrom('verb', 'text', 'url', 'loop', 'length', 'number', 'sip', 'client', 'targets', 'timeout', 'x'), fc.jsonValue({ maxDepth: 3 })),
    { maxLength: 5 },
  );
  fc.assert(fc.property(verbish, (value) => (attempt(JSON.stringify(value), 'json'), true)), RUNS);
  const tokens = fc.array(fc.constantFrom(...JSON_PIECES), { maxLength: 40 }).map((parts) => parts.join(''));
  fc.assert(fc.property(tokens, (text) => (attempt(text, 'json'), true)), RUNS);
  t.pass('only MarkupError');
});

t.test('deep nesting', async (t) => {
  for (const depth of [100, 1000, 20_000]) {
    attempt('['.repeat(depth) + ']'.repeat(depth), 'json');
    attempt('['.repeat(depth), 'json');
    attempt('{"a":'.repeat(depth / 10), 'json');
    attempt('<Response>' + '<Gather>'.repeat(depth / 10) + '</Gather>'.repeat(depth / 10) + '</Response>', 'xml');
    attempt('<x>'.repeat(depth), 'xml');
  }
  t.pass('only MarkupError');
});
