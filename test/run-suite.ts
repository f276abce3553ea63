// `npm test`: tap over every test file, with one throwaway PostgreSQL server for the whole run, in two lanes side by
// side and then one file alone. Each lane runs one file at a time, so at most two test processes share the machine,
// as tap's `jobs: 2` did, but never two real-engine files together.
// - The engine lane: the files that drive the real engines (drachtio-server, FreeSWITCH, sipp) and measure audio
//   packet by packet. Two of them at once on a 2-core machine (load 6 and up) lost frames the platform had sent;
//   one beside a store test does not. They take most of the run, so they start at once, not in alphabetical order
//   (tap sorts the files it is given).
// - The store lane: every other file on SQLite, then the files that touch the store (all but the engine and browser
//   tiers) again with RINGBASE_TEST_STORE=postgres, which puts each test harness on a database of its own on the
//   run's server. Its URL reaches every test file through RINGBASE_TEST_POSTGRES_URL; the server is stopped when tap
//   is done. A wrapper rather than tap's `before`/`after` options: those run a separate program to completion, which
//   can neither put the URL into the environment tap gives the test files nor tie the server to this run's life.
//   Its output is held while the engine lane prints, then printed whole, so neither lane's TAP is cut into the other.
// - Last, the real-time browser audio files, alone on the machine. A WebRTC seat's audio goes through Chromium's
//   capture, encoder and playout threads: on a 2-core machine with another engine test beside it they were starved
//   (load average 6 to 12: 7 to 30 of 100 frames of the seat's tone went out near silent, in both directions, while
//   the SIP legs of the same calls were whole), so the test measured the machine, not the platform.
// Options go to tap as they are; files and folders named (`npm test -- test/store/x.test.ts test/acd/`) are split
// between the lanes the same way (a lane alone runs as many files at once as tap's `jobs` say). All outputs pass
// through; the closing summary line adds the runs up (the line .ci/run reads), and the exit status is the first
// failure's.
import { spawn } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import {
  createMigratedTemplate, findPostgresBinaries, SKIP_LINE, startPostgresServer, TEMPLATE_VAR, URL_VAR, type PostgresServer,
} from './helpers/postgres.js';
import { ROOT } from './helpers/spawn.js';
import { STORE_VAR } from './helpers/backends.js';

/** Files that run alone, after the others: they measure a browser's real-time audio. */
const ALONE = [/^test\/engine\/drachtio\/dialled-leg-audio-webrtc\.test\.ts$/];
/**
 * Files of the engine lane: they drive the real engines. The README's fresh clone (about 2 minutes, SQLite only) runs
 * in the store lane: the engine lane is the longer one (a full run on this 2-core machine: 2198 s against 1789 s
 * for the store lane's two halves), so it moved there.
 */
const ENGINE_LANE = [/^test\/engine\//, /^test\/engine-suite\/real/, /^test\/recovery\/real-engine/];
/**
 * Files left out of the PostgreSQL half: the engine and browser tiers (they test SIP, media and pages, not the store),
 * the newcomer's fresh clone, and files that pick their databases themselves, so a second run would repeat the
 * first: store/db (the SQLite file's own settings and migrations) and cli/db (seeds an SQLite installation and moves
 * it into a database of the run's PostgreSQL server); and the architecture check, which reads the sources only.
 */
const SQLITE_ONLY = [
  /^test\/engine\//, /^test\/engine-suite\/real/, /^test\/browser\//, /^test\/recovery\/real-engine/, /^test\/(readme|newcomer)\.test\.ts$/,
  /^test\/store\/db\.test\.ts$/, /^test\/cli\/db\.test\.ts$/, /^test\/architecture\.test\.ts$/,
];

const env = { ...process.env };
let server: PostgresServer | undefined;
// A URL set by the caller (a server of one's own) is used as it is.
if (!env[URL_VAR]) {
  const bin = findPostgresBinaries();
  if (bin) {
    server = await startPostgresServer(bin);
    env[URL_VAR] = server.url;
  } else {
    process.stdout.write(`# ${SKIP_LINE}\n`);
  }
}

const TAP = path.join(ROOT, 'node_modules', '.bin', 'tap');

interface TapRun { code: number; summary: Record<string, number> }

/** Runs tap with `args`, its output given to `write`; resolves with its exit status and its closing summary. */
async function runTap(args: string[], extraEnv: Record<string, string>, write: (chunk: Buffer) => void): Promise<TapRun> {
  const tap = spawn(TAP, args, { stdio: ['inherit', 'pipe', 'inherit'], env: { ...env, ...extraEnv } });
  // Told to stop, tap passes the signal on to its test processes and exits once they have; this script then exits
  // as tap did. killOnExit, which guards the server, kills it at once on these signals. Passed on once only: tap
  // takes a second signal as the default action (it dies at once, leaving its test processes running).
  const forward = (signal: NodeJS.Signals) => () => tap.kill(signal);
  const handlers = (['SIGINT', 'SIGTERM', 'SIGHUP'] as const).map((signal) => [signal, forward(signal)] as const);
  for (const [signal, fn] of handlers) process.once(signal, fn);
  let last = '';
  tap.stdout!.on('data', (chunk: Buffer) => {
    write(chunk);
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
const onPostgres = env[URL_VAR] ? files.filter((f) => !SQLITE_ONLY.some((rule) => rule.test(f))) : [];

// Test databases are copies of one migrated database (see createMigratedTemplate), made once for the run.
const template = env[URL_VAR] ? await createMigratedTemplate(env[URL_VAR]) : undefined;
if (template) env[TEMPLATE_VAR] = template.name;

const engineLane = files.filter((f) => !alone.includes(f) && ENGINE_LANE.some((rule) => rule.test(f)));
const storeLane = files.filter((f) => !alone.includes(f) && !engineLane.includes(f));
const storeLaneRuns = storeLane.length + onPostgres.length > 0;
const toStdout = (chunk: Buffer) => process.stdout.write(chunk);
const runs: TapRun[] = [];

/** The store lane: its SQLite files, then its PostgreSQL ones. */
async function runStoreLane(jobs: string[], write: (chunk: Buffer) => void): Promise<void> {
  if (storeLane.length) runs.push(await runTap([...options, ...jobs, ...storeLane], {}, write));
  if (onPostgres.length) {
    write(Buffer.from(`# the same files on PostgreSQL (${STORE_VAR}=postgres): ${onPostgres.length} files\n`));
    runs.push(await runTap([...options, ...jobs, ...onPostgres], { [STORE_VAR]: 'postgres' }, write));
  }
}

/**
 * tap builds its test class for the configured plugins the first time it runs after an install, deleting and
 * writing it again: two taps starting together on a fresh clone did it at once, and every file of one failed
 * ("Cannot find module .../test-built/dist/esm/index.js"). So it is built once, before the lanes start.
 */
async function buildTap(): Promise<void> {
  const build = spawn(TAP, ['build'], { stdio: ['ignore', 'ignore', 'inherit'], env });
  const code = await new Promise<number | null>((resolve, reject) => { build.once('exit', resolve); build.once('error', reject); });
  if (code !== 0) throw new Error(`tap build failed (exit ${code})`);
}

if (engineLane.length) {
  if (storeLaneRuns) await buildTap();
  const held: Buffer[] = [];
  await Promise.all([
    runTap([...options, '--jobs=1', ...engineLane], {}, toStdout).then((run) => { runs.push(run); }),
    runStoreLane(['--jobs=1'], (chunk) => { held.push(chunk); }),
  ]);
  if (storeLaneRuns) process.stdout.write(`# the store lane, run beside the engine lane:\n${Buffer.concat(held).toString()}`);
} else {
  await runStoreLane([], toStdout);
}
if (alone.length) {
  process.stdout.write(`# run alone, one at a time (they measure a browser's real-time audio): ${alone.join(', ')}\n`);
  runs.push(await runTap([...options, '--jobs=1', ...alone], {}, toStdout));
}
await template?.drop();
await server?.stop();
// The closing line .ci/run reads: every run counted.
const total: Record<string, number> = {};
for (const run of runs) for (const [k, v] of Object.entries(run.summary)) total[k] = (total[k] ?? 0) + v;
process.stdout.write(`# { ${Object.entries(total).map(([k, v]) => `${k}: ${v}`).join(', ')} }\n`);
process.exit(runs.find((run) => run.code !== 0)?.code ?? 0);
