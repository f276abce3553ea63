// Prints every failed assertion of a TAP log with its subtest path and the first lines of its diagnostics.
// CI shows only the tail of a run; without this digest a red run says how many failed but not which.
// Usage: node .ci/failures.mjs LOG
import { readFileSync } from 'node:fs';

const DIAGNOSTIC_LINES = 40;
// Where-in-the-code keys: the source excerpt below them says the same more readably.
const SKIPPED_KEY = /^(at:|fileName|lineNumber|columnNumber|typeName|methodName|functionName|isToplevel|stack|Test\.<anonymous>|-+\^$)/;
const TOTAL_LINES = 300;

const lines = readFileSync(process.argv[2], 'utf8').split('\n');
const indentOf = (line) => line.length - line.trimStart().length;
const path = []; // [{ indent, name }] of the "# Subtest:" headers enclosing the current line
const out = [];

for (let i = 0; i < lines.length && out.length < TOTAL_LINES; i++) {
  const line = lines[i];
  const header = /^(\s*)# Subtest: (.*)$/.exec(line);
  if (header) {
    const indent = header[1].length;
    while (path.length && path.at(-1).indent >= indent) path.pop();
    path.push({ indent, name: header[2] });
    continue;
  }
  if (!/^\s*not ok \d+/.test(line)) continue;
  const indent = indentOf(line);
  const enclosing = path.filter((p) => p.indent < indent).map((p) => p.name);
  // A failed file or subtest repeats the failures already printed inside it: name it, nothing more.
  const isAssertion = !lines.slice(Math.max(0, i - 3), i).some((l) => /^\s*1\.\.\d+/.test(l) && indentOf(l) > indent);
  out.push(`✗ ${[...enclosing, line.trim().replace(/^not ok \d+ - /, '')].join(' › ')}`);
  if (!isAssertion || indent === 0) continue;
  let j = i + 1;
  if (lines[j]?.trim() !== '---') continue;
  for (j++; j < lines.length && lines[j].trim() !== '...' && j - i <= DIAGNOSTIC_LINES; j++) {
    const text = lines[j].trim();
    if (text && !SKIPPED_KEY.test(text)) out.push(`    ${text}`);
  }
}

if (out.length) {
  console.log('\n# Failures (each failed assertion, its subtests, its first diagnostic lines):');
  for (const line of out.slice(0, TOTAL_LINES)) console.log(line);
}
