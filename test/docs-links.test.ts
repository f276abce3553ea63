// Every relative link in docs/ and the README reaches something: the file exists, and a `#anchor` is a heading of
// that page (GitHub's slugs: lower case, punctuation dropped, spaces to hyphens, repeats numbered -1, -2, ...) or
// an explicit `<a id>`. Links inside code (fenced blocks, `inline`) are not links and are skipped.
import t from 'tap';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import path from 'node:path';
import { ROOT } from './helpers/spawn.js';

/** The page with its code blocks and inline code spans blanked (so their text is neither a heading nor a link). */
function prose(markdown: string): string {
  return markdown
    .replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '')
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, (span) => (span.includes('\n\n') ? span : ' '));
}

/** A heading's text as GitHub renders it: inline code kept as its text, links as their text, emphasis marks gone. */
function headingText(raw: string): string {
  // Split on code spans: outside them links become their text and HTML tags vanish; inside, the text stays as is.
  return raw.split(/(`[^`]*`)/).map((part) => (part.startsWith('`')
    ? part.slice(1, -1)
    : part.replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/<[^>]+>/g, ''))).join('').trim();
}

/** github-slugger: lower case; letters, digits, marks, spaces, `-` and `_` kept, the rest dropped; spaces to `-`. */
export function slug(text: string): string {
  return text.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
}

function anchorsOf(markdown: string): Set<string> {
  const seen = new Map<string, number>();
  const out = new Set<string>();
  // Headings are read with their code spans intact (their text is part of the slug); fenced blocks are not headings.
  const withoutFences = markdown.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const m of withoutFences.matchAll(/^#{1,6}[ \t]+(.+?)[ \t]*#*[ \t]*$/gm)) {
    const base = slug(headingText(m[1]!));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  for (const m of markdown.matchAll(/<a\s+(?:id|name)="([^"]+)"/g)) out.add(m[1]!);
  return out;
}

function linksOf(markdown: string): string[] {
  const text = prose(markdown);
  const inline = [...text.matchAll(/!?\[(?:[^\]\\]|\\.)*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)].map((m) => m[1]!);
  const definitions = [...text.matchAll(/^ {0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s+.*)?$/gm)].map((m) => m[1]!);
  return [...inline, ...definitions];
}

function markdownFiles(): string[] {
  const docs = path.join(ROOT, 'docs');
  const walk = (dir: string): string[] => readdirSync(dir).flatMap((name) => {
    const full = path.join(dir, name);
    return statSync(full).isDirectory() ? walk(full) : name.endsWith('.md') ? [full] : [];
  });
  return [path.join(ROOT, 'README.md'), ...walk(docs)];
}

t.test('the slug rule, on headings these pages use', async (t) => {
  t.equal(slug(headingText('`<Enqueue>`')), 'enqueue');
  t.equal(slug(headingText('API (`/v1`, HTTPS only, bearer key)')), 'api-v1-https-only-bearer-key');
  t.equal(slug(headingText('Queues and agents: what `status_callback` says')), 'queues-and-agents-what-status_callback-says');
  t.same([...anchorsOf('# A\n## A\n```\n# A\n```\n## A')], ['a', 'a-1', 'a-2'], 'repeats numbered; fenced code is no heading');
  t.same(linksOf('[x](a.md#b) `[y](c.md)` [z]: d.md\n[w]: e.md "title"\n```\n[v](f.md)\n```'), ['a.md#b', 'e.md'], 'links in code skipped');
});

t.test('every relative link and #anchor in docs/ and the README resolves', async (t) => {
  const files = markdownFiles();
  const anchors = new Map(files.map((f) => [f, anchorsOf(readFileSync(f, 'utf8'))]));
  let checked = 0;
  for (const file of files) {
    for (const link of linksOf(readFileSync(file, 'utf8'))) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(link)) continue;
      const [target, anchor] = link.split('#', 2) as [string, string | undefined];
      const resolved = target === '' ? file : path.resolve(path.dirname(file), decodeURIComponent(target));
      const where = `${path.relative(ROOT, file)}: ${link}`;
      checked++;
      if (!existsSync(resolved)) {
        t.fail(`${where}: no file ${path.relative(ROOT, resolved)}`);
        continue;
      }
      if (anchor === undefined || anchor === '') continue;
      const known = anchors.get(resolved) ?? (resolved.endsWith('.md') ? anchorsOf(readFileSync(resolved, 'utf8')) : new Set<string>());
      t.ok(known.has(decodeURIComponent(anchor)), `${where}: #${anchor} is a heading of ${path.relative(ROOT, resolved)}`);
    }
  }
  t.ok(checked > 50, `links checked: ${checked}`);
});
