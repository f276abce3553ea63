// `npm test`: tap in two passes. First every test file but the ones that measure a browser's audio in real time,
// as many at once as tap's `jobs` say; then those, alone on the machine. A WebRTC seat's audio goes through
// Chromium's capture, encoder and playout threads: on a 2-core machine with another engine test beside it they
// were starved (load average 6 to 12: 7 to 30 of 100 frames of the seat's tone went out near silent, in both
// directions, while the SIP legs of the same calls were whole), so the test measured the machine, not the platform.
// Options go to tap as they are; files and folders named (`npm test -- test/store/x.test.ts test/acd/`) are split
// between the passes the same way. Both outputs pass through; the closing summary line adds both passes up (the line .ci/run reads), and
// the exit status is the first failure's.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { ROOT } from './helpers/spawn.js';

/** Files that run alone, after the others: they measure a browser's real-time audio. */
const ALONE = [/^test\/engine\/drachtio\/dialled-leg-audio-webrtc\.test\.ts$/];

/** Runs tap with `args`, its output passed through; resolves with its exit status and its closing summary. */
async function runTap(args: string[]): Promise<{ code: number; summary: Record<string, number> }> {
  const tap = spawn(path.join(ROOT, 'node_modules', '.bin', 'tap'), args, { stdio: ['inherit', 'pipe', 'inherit'] });
  // Told to stop, tap passes the signal on to its test processes and exits once they have; this script then exits
  // as tap did. Passed on once only: tap takes a second signal as the default action (it dies at once, leaving its
  // test processes running).
  const forward = (signal: NodeJS.Signals) => () => tap.kill(signal);
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, fn] of handlers) process.once(signal, fn);
  let last = '';
  tap.stdout!.on('data', (chunk: Buffer) => {
    process.stdout.write(chunk);
    last = (last + chunk.toString()).slice(-4000);
  });
  const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
    tap.once('exit', (c, s) => resolve([c, s]));
    tap.once('error', reject);
  });
  for (const [signal, fn] of handlers) process.off(signal, fn);
  const line = [...last.matchAll(/^# \{ (.*) \}$/gm)].at(-1)?.[1] ?? '';
  const summary = Object.fromEntries([...line.matchAll(/(\w+): (\d+)/g)].map((m) => [m[1]!, Number(m[2])]));
  return { code: code ?? 128 + constants.signals[signal!], summary };
}

/** The test files under `dir` (relative to the root), as tap's `include` (test/**\/*.test.ts) finds them. */
function testFilesUnder(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.test.ts')).map((f) => path.join(dir, f));
}

/** Root-relative paths of the test files an argument names (a file, or every test file in a folder); null for an option or its value. */
function namedFiles(arg: string): string[] | null {
  if (arg.startsWith('-')) return null;
  const relative = path.relative(ROOT, path.resolve(ROOT, arg));
  const stat = statSync(path.join(ROOT, relative), { throwIfNoEntry: false });
  if (stat?.isDirectory()) return testFilesUnder(relative);
  return stat?.isFile() ? [relative] : null;
}

const args = process.argv.slice(2);
const options = args.filter((a) => namedFiles(a) === null);
const named = args.flatMap((a) => namedFiles(a) ?? []);
const files = (args.length > options.length ? named : testFilesUnder('test')).sort();
const alone = files.filter((f) => ALONE.some((rule) => rule.test(f)));
const together = files.filter((f) => !alone.includes(f));

const passes = [
  { files: together, extra: [] as string[], note: '' },
  { files: alone, extra: ['--jobs=1'], note: `# run alone, one at a time (they measure a browser's real-time audio): ${alone.join(', ')}\n` },
];
const total: Record<string, number> = {};
let code = 0;
for (const pass of passes.filter((p) => p.files.length > 0)) {
  process.stdout.write(pass.note);
  const run = await runTap([...options, ...pass.extra, ...pass.files]);
  for (const [k, v] of Object.entries(run.summary)) total[k] = (total[k] ?? 0) + v;
  code ||= run.code;
}
// The closing line .ci/run reads: both passes counted.
process.stdout.write(`# { ${Object.entries(total).map(([k, v]) => `${k}: ${v}`).join(', ')} }\n`);
process.exit(code);
