/**
 * docs/markup.md is executable: every example document must behave exactly as the page says.
 * See "Conventions used in this file" at the end of that page for the block format.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import t from 'tap';
import { detectFormat, MarkupError, parseMarkup, type MarkupFormat, type MarkupIssue } from '../../src/markup/index.js';

const doc = readFileSync(fileURLToPath(new URL('../../docs/markup.md', import.meta.url)), 'utf8');

interface Block {
  tag: string;
  body: string;
  line: number;
}

const blocks: Block[] = [];
for (const m of doc.matchAll(/^```([\w-]*)\n([\s\S]*?)^```$/gm)) {
  blocks.push({ tag: m[1] ?? '', body: m[2] ?? '', line: doc.slice(0, m.index).split('\n').length });
}

function issuesOf(text: string, format: MarkupFormat): MarkupIssue[] | undefined {
  try {
    parseMarkup(text, format);
    return undefined;
  } catch (err) {
    if (err instanceof MarkupError) return err.issues;
    throw err;
  }
}

const valid = blocks.filter((b) => b.tag === 'xml' || b.tag === 'json');
const invalid = blocks.filter((b) => b.tag === 'xml-invalid' || b.tag === 'json-invalid');

t.test('the page has examples of both kinds', async (t) => {
  t.ok(valid.filter((b) => b.tag === 'xml').length >= 10, 'xml examples');
  t.ok(valid.filter((b) => b.tag === 'json').length >= 2, 'json examples');
  t.ok(invalid.length >= 20, 'invalid examples');
  const other = blocks.filter((b) => b.tag !== '' && !valid.includes(b) && !invalid.includes(b));
  t.same(other.map((b) => `${b.tag}@${b.line}`), [], 'no block uses an unknown tag');
});

for (const block of valid) {
  t.test(`${block.tag} example at docs/markup.md:${block.line} is valid`, async (t) => {
    const format = block.tag as MarkupFormat;
    t.equal(detectFormat(block.body), format);
    const issues = issuesOf(block.body, format);
    t.same(issues, undefined, issues ? issues.map((i) => `${i.line}:${i.column} ${i.code} ${i.message}`).join('\n') : 'parses');
    t.ok(parseMarkup(block.body, format).length > 0, 'has verbs');
  });
}

const EXPECT_XML = /^<!-- expect: ([a-z_]+)(?: (\d+):(\d+))? -->$/;
const EXPECT_JSON = /^\/\/ expect: ([a-z_]+)(?: (\S+))?$/;

for (const block of invalid) {
  t.test(`${block.tag} example at docs/markup.md:${block.line} is refused as documented`, async (t) => {
    const [first = '', ...rest] = block.body.split('\n');
    const isXml = block.tag === 'xml-invalid';
    const m = (isXml ? EXPECT_XML : EXPECT_JSON).exec(first);
    if (!m) {
      t.fail(`first line must state the expectation, got ${JSON.stringify(first)}`);
      return;
    }
    const [, code, a, b] = m;
    const text = isXml ? block.body : rest.join('\n');
    const issues = issuesOf(text, isXml ? 'xml' : 'json');
    if (!issues) {
      t.fail('document was accepted');
      return;
    }
    const matching = issues.filter((i) => i.code === code);
    t.ok(matching.length > 0, `has ${code}; got ${issues.map((i) => i.code).join(', ')}`);
    if (isXml && a !== undefined) {
      t.ok(matching.some((i) => i.line === Number(a) && i.column === Number(b)), `at ${a}:${b}; got ${matching.map((i) => `${i.line}:${i.column}`).join(', ')}`);
    } else if (a !== undefined) {
      const pos = /^(\d+):(\d+)$/.exec(a);
      const here = (i: MarkupIssue): boolean => (pos ? i.line === Number(pos[1]) && i.column === Number(pos[2]) : i.path === a);
      t.ok(matching.some(here), `at ${a}; got ${matching.map((i) => i.path ?? `${i.line}:${i.column}`).join(', ')}`);
    }
  });
}

t.test('every error code in the table is demonstrated or tested elsewhere', async (t) => {
  const table = doc.slice(doc.indexOf('| Code | Meaning |'), doc.indexOf('### Examples'));
  const codes = [...table.matchAll(/^\| `([a-z_]+)`(?: \/ `([a-z_]+)`)?/gm)].flatMap((m) => [m[1], m[2]]).filter((c) => c !== undefined);
  t.ok(codes.length >= 20, 'table parsed');
  // These need inputs a documentation example cannot sensibly show; malformed.test.ts covers them.
  const elsewhere = new Set(['too_large', 'invalid_encoding', 'too_deep', 'too_many_verbs', 'too_many_issues', 'invalid_format', 'unknown_format', 'internal_error']);
  const shown = new Set(invalid.map((b) => (EXPECT_XML.exec(b.body.split('\n')[0] ?? '') ?? EXPECT_JSON.exec(b.body.split('\n')[0] ?? ''))?.[1]));
  t.same(codes.filter((c) => !elsewhere.has(c) && !shown.has(c)), [], 'codes without an example');
});
