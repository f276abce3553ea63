// Builds a real app on a real SQLite file in a temp dir, listening on 127.0.0.1, for one tap test.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Writable } from 'node:stream';
import { loadConfig, type Config } from '../../src/config.js';
import { FakeClock, systemClock, type Clock } from '../../src/clock.js';
import { createLogger } from '../../src/logger.js';
import { openStore, type Store } from '../../src/repositories.js';
import { databaseEnv, harnessDatabase, settleClockOnStore } from './backends.js';
import { cli } from './spawn.js';
import { createSecretBox, type SecretBox } from '../../src/crypto/secret-box.js';
import { SandboxEngine } from '../../src/engine/sandbox/index.js';
import type { EnginePort } from '../../src/engine/port.js';
import type { Logger } from 'pino';
import { appendFileSync } from 'node:fs';
import { createApp, type App } from '../../src/http/app.js';
import { randomBytes } from 'node:crypto';
import { freshFetch } from './fresh-fetch.js';

interface Tap { teardown(fn: () => unknown): void }

export interface Harness {
  url: string;
  dataDir: string;
  config: Config;
  store: Store;
  app: App;
  engine: SandboxEngine;
  clock: Clock;
  masterKey: Buffer;
  logs: string[];
  account(opts?: { trunking?: boolean; trunkCapacity?: number }): Promise<{ id: number; key: string }>;
  request(method: string, urlPath: string, opts?: { key?: string | null; body?: unknown; headers?: Record<string, string> }): Promise<{ status: number; headers: Headers; body: any; text: string }>;
  /** GET as bytes (recordings), with the default key unless another is given. */
  download(urlPath: string, key?: string): Promise<{ status: number; headers: Headers; bytes: Buffer }>;
}

/**
 * Another engine than the sandbox (the real-engine tier): the port the app runs on, and what tests reach as
 * `h.engine` (test probes such as activeLegs, answered by a facade).
 */
export interface HarnessEngine { port: EnginePort; view: SandboxEngine }
export type MakeHarnessEngine = (deps: { config: Config; store: Store; logger: Logger; secrets: SecretBox }) => HarnessEngine;

export function tempDir(t: Tap, prefix = 'ringbase-test-'): string {
  const dir = mkdtempSync(path.join(tmpdir(), prefix));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  return dir;
}

/**
 * A store without an app, on the backend the run selects: the SQLite file in `dir`, or with RINGBASE_TEST_STORE=postgres
 * a fresh database of the run's server (harnessDatabase). Closed at the test's teardown; on PostgreSQL a fake clock
 * waits for its queries. A test that reopens the store (a restart) takes harnessDatabase(t) and openStore itself.
 */
export async function openTestStore(t: Tap, clock: Clock, dir = tempDir(t)): Promise<Store> {
  const store = await openStore(dir, clock, await harnessDatabase(t));
  t.teardown(() => store.close());
  settleClockOnStore(t, clock, store.sql);
  return store;
}

/**
 * The operator CLI on `dataDir` and the database the run selects (harnessDatabase), as an operator would run it: on
 * PostgreSQL the CLI gets RINGBASE_DATABASE_URL, or it would open an empty SQLite file in the data dir. `database`
 * is for a server process or a store the test opens on the same database.
 */
export async function operatorCli(t: Tap, dataDir = tempDir(t), env: Record<string, string> = {}) {
  const database = await harnessDatabase(t);
  return { dataDir, database, rb: cli(dataDir, { ...databaseEnv(database), ...env }) };
}

export async function startHarness(
  t: Tap,
  opts: {
    env?: Record<string, string>; fakeClock?: boolean; clock?: Clock; engine?: MakeHarnessEngine;
    /** A database another harness is on too (two control planes on one PostgreSQL database); its owner drops it. */
    database?: Config['database'];
    /** The master key, shared by control planes on one database as in a cluster (default: a random one of its own). */
    masterKey?: Buffer;
  } = {},
): Promise<Harness> {
  const dataDir = tempDir(t);
  const config = loadConfig({ RINGBASE_DATA_DIR: dataDir, HOST: '127.0.0.1', PORT: '0', RINGBASE_SIP_HOST: 'sip.test.example', ...opts.env });
  const clock = opts.clock ?? (opts.fakeClock ? new FakeClock(Date.now()) : systemClock());
  const logs: string[] = [];
  // RINGBASE_TEST_LOG=FILE also appends the app's log there (diagnosing real-engine runs).
  const logFile = process.env.RINGBASE_TEST_LOG;
  const logger = createLogger('debug', new Writable({
    write(chunk, _enc, cb) { logs.push(String(chunk)); if (logFile) appendFileSync(logFile, chunk); cb(); },
  }));
  config.database = opts.database ?? await harnessDatabase(t);
  const store = await openStore(dataDir, clock, config.database);
  settleClockOnStore(t, clock, store.sql);
  const masterKey = opts.masterKey ?? randomBytes(32);
  const secrets = createSecretBox(masterKey);
  const chosen = opts.engine?.({ config, store, logger: logger.child({ component: 'engine' }), secrets }) ?? (() => {
    const sandbox = new SandboxEngine(clock);
    return { port: sandbox, view: sandbox };
  })();
  const engine = chosen.view;
  await chosen.port.start();
  const app = await createApp({ config, store, engine: chosen.port, clock, logger, secrets });
  await app.http.listen({ host: '127.0.0.1', port: 0 });
  const address = app.http.server.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  t.teardown(async () => {
    await app.http.close();
    // The engine ends whatever calls are still up (a frozen fake clock never would), then the flows settle.
    await chosen.port.stop();
    await app.close();
    await store.close();
  });
  const url = `http://127.0.0.1:${port}`;
  const defaultKey: { current: string | null } = { current: null };

  return {
    url, dataDir, config, store, app, engine, clock, masterKey, logs,
    async account({ trunking = true, trunkCapacity = 10 } = {}) {
      const a = await store.accounts.create({ name: `acct-${randomBytes(3).toString('hex')}`, trunking, trunkCapacity });
      const key = (await store.apiKeys.create(a.id)).key;
      defaultKey.current ??= key;
      return { id: a.id, key };
    },
    async download(urlPath, key) {
      const k = key ?? defaultKey.current;
      const res = await freshFetch(url + urlPath, { headers: k ? { authorization: `Bearer ${k}` } : {} });
      return { status: res.status, headers: res.headers, bytes: Buffer.from(await res.arrayBuffer()) };
    },
    async request(method, urlPath, { key, body, headers = {} } = {}) {
      const h: Record<string, string> = { accept: 'application/json', ...headers };
      const k = key === undefined ? defaultKey.current : key;
      if (k) h.authorization = `Bearer ${k}`;
      let payload: string | undefined;
      if (body !== undefined) {
        payload = typeof body === 'string' ? body : JSON.stringify(body);
        h['content-type'] ??= 'application/json';
      }
      const res = await freshFetch(url + urlPath, { method, headers: h, body: payload, redirect: 'manual' });
      const text = await res.text();
      let parsed: unknown = undefined;
      try { parsed = text ? JSON.parse(text) : undefined; } catch { /* non-JSON bodies stay in text */ }
      return { status: res.status, headers: res.headers, body: parsed, text };
    },
  };
}
