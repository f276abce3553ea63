// `npm test`: tap, with one throwaway PostgreSQL server for the whole run. Its URL reaches every test file
// through RINGBASE_TEST_POSTGRES_URL (each file makes its own database on it); it is stopped when tap is done.
// A wrapper rather than tap's `before`/`after` options: those run a separate program to completion, which can
// neither put the URL into the environment tap gives the test files nor tie the server to this run's life.
// Arguments go to tap as they are (`npm test -- test/store/x.test.ts`). Tap runs twice: every file on SQLite, then
// the files that touch the store (all but the engine and browser tiers) with RINGBASE_TEST_STORE=postgres, which
// puts each test harness on a database of its own on the server. Both outputs pass through; the closing summary
// line adds both halves up, and the exit status is the first failure's.
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { constants } from 'node:os';
import path from 'node:path';
import { findPostgresBinaries, SKIP_LINE, startPostgresServer, URL_VAR, type PostgresServer } from './helpers/postgres.js';
import { ROOT } from './helpers/spawn.js';
import { STORE_VAR } from './helpers/backends.js';

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

/**
 * Files left out of the PostgreSQL half: the engine and browser tiers (they test SIP, media and pages, not the store),
 * the newcomer's fresh clone, and files that pick their databases themselves, so a second run would repeat the
 * first: store/db (the SQLite file's own settings and migrations) and cli/db (seeds an SQLite installation and moves
 * it into a database of the run's PostgreSQL server).
 */
const SQLITE_ONLY = [
  /^test\/engine\//, /^test\/engine-suite\/real/, /^test\/browser\//, /^test\/recovery\/real-engine/, /^test\/(readme|newcomer)\.test\.ts$/,
  /^test\/store\/db\.test\.ts$/, /^test\/cli\/db\.test\.ts$/,
];

/** Runs tap with `args`, its output passed through; resolves with its exit status and its closing summary. */
async function runTap(args: string[], extraEnv: Record<string, string>): Promise<{ code: number; summary: Record<string, number> }> {
  const tap = spawn(path.join(ROOT, 'node_modules', '.bin', 'tap'), args, { stdio: ['inherit', 'pipe', 'inherit'], env: { ...env, ...extraEnv } });
  // Told to stop, tap passes the signal on to its test processes and exits once they have; this script then exits
  // as tap did. killOnExit, which guards the server, kills it at once on these signals. Passed on once only: tap
  // takes a second signal as the default action (it dies at once, leaving its test processes running).
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

/** The files tap would run for `args` (its own include list when none is named), of the PostgreSQL half. */
function postgresFiles(args: string[]): string[] {
  const named = args.filter((a) => a.endsWith('.test.ts'));
  const files = named.length > 0 ? named : readdirRecursive('test').filter((f) => f.endsWith('.test.ts'));
  return files.map((f) => path.relative(ROOT, path.resolve(ROOT, f))).filter((f) => !SQLITE_ONLY.some((rule) => rule.test(f)));
}

function readdirRecursive(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { recursive: true, encoding: 'utf8' }).map((f) => path.join(dir, f));
}

const sqlite = await runTap(process.argv.slice(2), {});
let code = sqlite.code;
const total: Record<string, number> = { ...sqlite.summary };
const pgFiles = server || process.env[URL_VAR] ? postgresFiles(process.argv.slice(2)) : [];
if (pgFiles.length > 0) {
  process.stdout.write(`# the same files on PostgreSQL (${STORE_VAR}=postgres): ${pgFiles.length} files\n`);
  const postgres = await runTap([...process.argv.slice(2).filter((a) => !a.endsWith('.test.ts')), ...pgFiles], { [STORE_VAR]: 'postgres' });
  for (const [k, v] of Object.entries(postgres.summary)) total[k] = (total[k] ?? 0) + v;
  code ||= postgres.code;
}
await server?.stop();
// The closing line .ci/run reads: both halves counted.
process.stdout.write(`# { ${Object.entries(total).map(([k, v]) => `${k}: ${v}`).join(', ')} }\n`);
process.exit(code);
