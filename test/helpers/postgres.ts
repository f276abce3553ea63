// A throwaway PostgreSQL server for the PostgreSQL half of the tests: found on the machine (never shipped with
// the project), initialised in a temp dir, listening on a unix socket in that dir only, and removed afterwards.
// One server serves a whole `npm test` run (test/run-suite.ts starts it and exports RINGBASE_TEST_POSTGRES_URL);
// each test file makes its own database on it, so files running in parallel never share data.
import { execFile, execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { accessSync, chownSync, constants, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import pg from 'pg';
import type { Test } from 'tap';
import { killOnExit } from './engines.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import { migratePostgres } from '../../src/store/postgres-schema.js';

export const URL_VAR = 'RINGBASE_TEST_POSTGRES_URL';
export const SKIP_LINE = 'postgresql tier skipped: PostgreSQL binaries not found (install postgresql or set PG_BIN)';

const TOOLS = ['initdb', 'pg_ctl', 'postgres'];
const DEBIAN_BINS = '/usr/lib/postgresql';
/** The superuser initdb creates; a fixed name, so the URL is the same whoever runs the tests. */
const SUPERUSER = 'postgres';
/** PostgreSQL refuses to run as root: as root, initdb and the server run as this OS user (Debian's package makes it). */
const OS_USER = 'postgres';

function holdsTools(dir: string | undefined): dir is string {
  if (!dir) return false;
  try {
    for (const tool of TOOLS) accessSync(path.join(dir, tool), constants.X_OK);
    return true;
  } catch { return false; }
}

/** The dir holding initdb, pg_ctl and postgres: PG_BIN, else Debian's newest /usr/lib/postgresql/<v>/bin, else PATH. */
export function findPostgresBinaries(env: NodeJS.ProcessEnv = process.env): string | null {
  if (holdsTools(env.PG_BIN)) return env.PG_BIN;
  let versions: string[] = [];
  try { versions = readdirSync(DEBIAN_BINS).filter((v) => /^\d+$/.test(v)).sort((a, b) => Number(b) - Number(a)); } catch { /* not Debian's layout */ }
  for (const v of versions) {
    const dir = path.join(DEBIAN_BINS, v, 'bin');
    if (holdsTools(dir)) return dir;
  }
  return (env.PATH ?? '').split(path.delimiter).find((dir) => holdsTools(dir)) ?? null;
}

function systemTool(name: string): string | null {
  for (const dir of ['/usr/bin', '/bin', '/usr/sbin', '/sbin']) {
    try { accessSync(path.join(dir, name), constants.X_OK); return path.join(dir, name); } catch { /* next */ }
  }
  return null;
}

/**
 * The prefix PostgreSQL's programs run under. As root, they run as OS_USER. With setpriv (util-linux, which
 * execs, so a pid we hold is the program's own), the kernel also sends the program SIGQUIT, PostgreSQL's
 * immediate shutdown, when this process dies, even by SIGKILL, where killOnExit cannot run (a test process
 * killed at tap's timeout): a server never outlives the process that started it.
 */
function runPrefix(): string[] {
  const root = process.getuid?.() === 0;
  const setpriv = systemTool('setpriv');
  if (setpriv) return [setpriv, '--pdeathsig', 'SIGQUIT', ...(root ? [`--reuid=${OS_USER}`, `--regid=${OS_USER}`, '--init-groups'] : []), '--'];
  if (!root) return [];
  const runuser = systemTool('runuser');
  if (runuser) return [runuser, '-u', OS_USER, '--'];
  throw new Error(`running as root, and neither setpriv nor runuser was found to run PostgreSQL as the "${OS_USER}" user`);
}

const execFileP = promisify(execFile);

/** Runs a program to completion, bounded; the error carries what it printed. */
async function runTool(argv: string[], timeout = 60_000): Promise<string> {
  try {
    return (await execFileP(argv[0]!, argv.slice(1), { timeout })).stdout;
  } catch (err) {
    const e = err as Error & { stdout?: string; stderr?: string };
    throw new Error(`${path.basename(argv[0]!)} failed: ${e.message}\n${e.stdout ?? ''}${e.stderr ?? ''}`);
  }
}

async function osIds(user: string): Promise<{ uid: number; gid: number }> {
  const [uid, gid] = await Promise.all([runTool(['id', '-u', user]), runTool(['id', '-g', user])]);
  return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
}

/** Settings for a disposable server: durability off (a crash loses nothing we keep), room for parallel test files. */
const SERVER_SETTINGS: Record<string, string> = {
  // No TCP listener at all: the unix socket in the server's own dir is its only door.
  listen_addresses: '',
  fsync: 'off',
  synchronous_commit: 'off',
  full_page_writes: 'off',
  max_connections: '200',
  shared_buffers: '32MB',
  // English messages whatever the machine's locale: readiness is recognised by its log line.
  lc_messages: 'C',
  // Dynamic shared memory as files in the data dir rather than in /dev/shm, so a server killed with its test
  // process (killOnExit) leaves nothing there that outlives the dir.
  dynamic_shared_memory_type: 'mmap',
};

export interface PostgresServer {
  /** Server-level URL (the `postgres` maintenance database); tests make their own database with createTestDatabase. */
  url: string;
  /** The dir holding the data dir and the socket; removed by stop(). */
  socketDir: string;
  /** The postmaster's pid (its backends are its children, each in a session of its own, and exit when it does). */
  pid: number;
  stop(): Promise<void>;
}

const READY_LINE = 'database system is ready to accept connections';

function readyOrExit(child: ChildProcess, log: () => string, ms: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const done = (err?: Error) => {
      clearTimeout(timer);
      child.stderr!.off('data', onData);
      child.off('exit', onExit);
      child.off('error', onError);
      if (err) reject(err); else resolve();
    };
    const onData = () => { if (log().includes(READY_LINE)) done(); };
    const onExit = (code: number | null, signal: string | null) => done(new Error(`postgres exited before it was ready (${signal ?? `code ${code}`})`));
    const onError = (err: Error) => done(new Error(`postgres could not be started: ${err.message}`));
    const timer = setTimeout(() => done(new Error(`postgres not ready within ${ms} ms`)), ms);
    child.stderr!.on('data', onData);
    child.once('exit', onExit);
    child.once('error', onError);
  });
}

/**
 * A SIGKILLed postmaster (killOnExit) leaves its small SysV segment behind: postmaster.pid's 7th line names it
 * ("<key> <shmid>"). Marked for removal here, the kernel frees it once the last of its backends has exited.
 */
function releaseSysvSegment(dataDir: string): void {
  try {
    const shmid = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[6]?.trim().split(/\s+/)[1];
    if (shmid && /^\d+$/.test(shmid)) execFileSync('ipcrm', ['-m', shmid], { stdio: 'ignore', timeout: 5_000 });
  } catch { /* stopped cleanly (no pid file), or already removed */ }
}

/** The server's dir and, if it was killed rather than stopped, its SysV segment. */
export function removeServerLeftovers(dir: string): void {
  releaseSysvSegment(path.join(dir, 'data'));
  rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
}

/**
 * Cleans up when this process ends without stop() (a test failing mid-way): killOnExit has killed the server by
 * then (its exit hook runs first). A process killed by a signal runs no exit hooks: the server is still killed
 * (killOnExit's signal hook, or setpriv's parent-death signal), but its dir stays behind in the temp dir.
 */
function cleanUpOnExit(dir: string): () => void {
  const cleanUp = () => removeServerLeftovers(dir);
  process.once('exit', cleanUp);
  return () => process.off('exit', cleanUp);
}

/**
 * initdb in a fresh temp dir, then the server on a unix socket in that dir, ready when it says so in its log.
 * Authentication is `trust`: acceptable for a throwaway server because the socket is reachable only through
 * its dir, which is mode 0700 and owned by the server's user (and root), and nothing listens on TCP.
 */
export async function startPostgresServer(bin = findPostgresBinaries(), opts: { durable?: boolean } = {}): Promise<PostgresServer> {
  if (!bin) throw new Error(SKIP_LINE);
  const prefix = runPrefix();
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-pg-'));
  const dataDir = path.join(dir, 'data');
  try {
    if (process.getuid?.() === 0) {
      const { uid, gid } = await osIds(OS_USER);
      chownSync(dir, uid, gid);
    }
    const initdb = [...prefix, path.join(bin, 'initdb'),
      '-D', dataDir, '-U', SUPERUSER, '--auth=trust', '-E', 'UTF8', '--locale=C', '--no-sync', '--no-instructions',
      // 1 MB WAL segments instead of 16: a smaller dir to write now and to leave behind if this process is killed.
      '--wal-segsize=1',
    ];
    await runTool(initdb);
  } catch (err) {
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }

  // Benchmarks (durable) pay for commits as a production server does: fsync and full pages on, the defaults.
  const durability = opts.durable ? { fsync: 'on', synchronous_commit: 'on', full_page_writes: 'on' } : {};
  const settings = Object.entries({ ...SERVER_SETTINGS, ...durability, unix_socket_directories: dir }).flatMap(([k, v]) => ['-c', `${k}=${v}`]);
  const argv = [...prefix, path.join(bin, 'postgres'), '-D', dataDir, ...settings];
  // Own process group, which killOnExit kills whole (runuser, if used, stays as the postmaster's parent); the
  // backends, each in a session of its own, exit when they see the postmaster gone.
  const child = spawn(argv[0]!, argv.slice(1), { detached: true, stdio: ['ignore', 'ignore', 'pipe'] });
  killOnExit(child, true);
  // After killOnExit: its exit hook, which kills the server, must run before this one removes the dir.
  const forgetCleanUp = cleanUpOnExit(dir);
  const exited = new Promise<void>((r) => child.once('exit', () => r()));
  let log = '';
  child.stderr!.on('data', (d: Buffer) => { log = (log + d.toString()).slice(-20_000); });

  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
      // What `pg_ctl stop -m immediate` sends; the postmaster exits only after its backends have.
      try { process.kill(child.pid, 'SIGQUIT'); } catch { /* gone */ }
      const gone = await Promise.race([exited.then(() => true), new Promise<boolean>((r) => setTimeout(() => r(false), 10_000))]);
      if (!gone) {
        try { process.kill(-child.pid, 'SIGKILL'); } catch { /* gone */ }
        await exited;
      }
    }
    // Killed (by killOnExit on a signal, or just above), the server has left its segment too.
    removeServerLeftovers(dir);
    forgetCleanUp();
  };
  try {
    await readyOrExit(child, () => log, 30_000);
  } catch (err) {
    await stop();
    throw new Error(`PostgreSQL did not start: ${(err as Error).message}\n${log.slice(-4000)}`);
  }
  const url = new URL(`postgres://${SUPERUSER}@localhost/postgres`);
  url.searchParams.set('host', dir);
  return { url: url.toString(), socketDir: dir, pid: child.pid!, stop };
}

async function onMaintenanceDb<T>(serverUrl: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try { return await work(client); } finally { await client.end(); }
}

export interface TestDatabase { name: string; url: string; drop(): Promise<void> }

/**
 * A new, uniquely named database on the server at `serverUrl`: empty, or a copy of `template` (a database nobody is
 * connected to); drop() ends its sessions and removes it.
 */
export async function createTestDatabase(serverUrl: string, template?: string): Promise<TestDatabase> {
  const name = `ringbase_test_${process.pid}_${randomBytes(6).toString('hex')}`;
  await onMaintenanceDb(serverUrl, (c) => c.query(`CREATE DATABASE "${name}"${template ? ` TEMPLATE "${template}"` : ''}`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: () => onMaintenanceDb(serverUrl, async (c) => { await c.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`); }),
  };
}

/** Names a database on the run's server holding the newest schema, which test harnesses' databases copy. */
export const TEMPLATE_VAR = 'RINGBASE_TEST_POSTGRES_TEMPLATE';

/**
 * A database on the server brought to the newest schema, for harnesses to copy: a copy takes one CREATE DATABASE,
 * where migrating a new database takes about as long again (each of the run's ~1,500 harnesses made one).
 */
export async function createMigratedTemplate(serverUrl: string): Promise<TestDatabase> {
  const database = await createTestDatabase(serverUrl);
  const db = new PostgresDb({ url: database.url, poolSize: 1 });
  try { await migratePostgres(db.pool); } finally { await db.close(); }
  return database;
}

let ownServer: Promise<PostgresServer> | undefined;

/**
 * The run's server URL, or null after recording one skipped test (tap counts it as skipped, never as passed).
 * Under `npm test` the URL comes from test/run-suite.ts; a file run on its own (`npx tap test/x.test.ts`) with
 * PostgreSQL installed starts a server of its own, stopped when the file's tests are done.
 */
export async function postgresOrSkip(t: Pick<Test, 'skip'>): Promise<string | null> {
  const shared = process.env[URL_VAR];
  if (shared) return shared;
  const bin = findPostgresBinaries();
  if (!bin) {
    t.skip(SKIP_LINE, () => {});
    return null;
  }
  ownServer ??= (async () => {
    const server = await startPostgresServer(bin);
    const { default: root } = await import('tap');
    root.teardown(server.stop);
    return server;
  })();
  return (await ownServer).url;
}
