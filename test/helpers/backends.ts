// Runs a test body once per store backend: SQLite (a fresh file) and PostgreSQL (a fresh database on the run's
// throwaway server, or one skipped test when PostgreSQL is not installed), each migrated to the newest schema.
// Repository tests use it so both backends pass the same assertions.
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Test } from 'tap';
import { FakeClock, type Clock } from '../../src/clock.js';
import { openDb } from '../../src/store/db.js';
import { tablesInDependencyOrder } from '../../src/store/copy-to-postgres.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import { migratePostgres, VERSION_TABLE } from '../../src/store/postgres-schema.js';
import type { SqlDb } from '../../src/store/sql.js';
import { SqliteDb } from '../../src/store/sqlite-db.js';
import { createTestDatabase, postgresOrSkip, TEMPLATE_VAR, URL_VAR } from './postgres.js';

export type Backend = SqlDb['dialect'];

/** A migrated, empty database of `backend`, closed and removed at the test's teardown; null when it is skipped. */
export async function freshDatabase(t: Test, backend: Backend): Promise<SqlDb | null> {
  if (backend === 'sqlite') {
    const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-sql-'));
    const db = new SqliteDb(openDb(path.join(dir, 'ringbase.db')));
    t.teardown(async () => { await db.close(); rmSync(dir, { recursive: true, force: true }); });
    return db;
  }
  const server = await postgresOrSkip(t);
  if (!server) return null;
  const database = await createTestDatabase(server, process.env[TEMPLATE_VAR]);
  const db = new PostgresDb({ url: database.url, poolSize: 4 });
  t.teardown(async () => { await db.close(); await database.drop(); });
  await migratePostgres(db.pool);
  return db;
}

/** `body` as one subtest per backend, named after it. */
export function onEachBackend(t: Test, name: string, body: (t: Test, db: SqlDb) => Promise<void>): void {
  for (const backend of ['sqlite', 'postgres'] as const) {
    t.test(`${name} [${backend}]`, async (t) => {
      const db = await freshDatabase(t, backend);
      if (db) await body(t, db);
    });
  }
}

/**
 * Removes every row of every table (the schema stays, ids start again at 1): a migrated database as new, in a few
 * ms where making one takes a few hundred on PostgreSQL. Open nothing that caches rows on `db` before this.
 */
export async function emptyDatabase(db: SqlDb): Promise<void> {
  if (db instanceof SqliteDb) {
    // Rows that reference others go first, so the foreign keys hold throughout; sqlite_sequence keeps the ids.
    const children = tablesInDependencyOrder(db.raw).reverse();
    db.raw.transaction(() => {
      for (const table of children) db.raw.exec(`DELETE FROM "${table}"`);
      if (db.raw.prepare("SELECT 1 FROM sqlite_master WHERE name = 'sqlite_sequence'").get()) db.raw.exec('DELETE FROM sqlite_sequence');
    })();
    return;
  }
  const tables = await db.all<{ tablename: string }>('SELECT tablename FROM pg_tables WHERE schemaname = current_schema() AND tablename <> ?', [VERSION_TABLE]);
  await db.run(`TRUNCATE ${tables.map((r) => `"${r.tablename}"`).join(', ')} RESTART IDENTITY`);
}

/** Counts the transactions opened on `db` from now on, to show what idle periodic work costs (a spy on transaction). */
export function countTransactions(db: SqlDb): () => number {
  let opened = 0;
  const transaction = db.transaction.bind(db);
  db.transaction = <T>(fn: Parameters<SqlDb['transaction']>[0]) => { opened++; return transaction(fn) as Promise<T>; };
  return () => opened;
}

/** Counts the statements `db` is asked to run outside transactions (each one round trip on PostgreSQL), from now on. */
export function countStatements(db: SqlDb): () => number {
  let sent = 0;
  for (const method of ['one', 'all', 'run'] as const) {
    const original = db[method].bind(db) as (...args: unknown[]) => Promise<unknown>;
    (db as unknown as Record<string, unknown>)[method] = (...args: unknown[]) => { sent++; return original(...args); };
  }
  return () => sent;
}

/** The SQLite connection under a store, for tests about the SQLite file itself (WAL checkpoints, change counters). */
export function sqliteConnection(store: { sql: SqlDb }): SqliteDb['raw'] {
  if (!(store.sql instanceof SqliteDb)) throw new Error('this test is about the SQLite file; the store is on PostgreSQL');
  return store.sql.raw;
}

/**
 * Everything a store keeps at rest, to search for values that must never be stored in clear: every file of the data
 * dir (database, media caches, recordings), on SQLite once the WAL is folded into the database file; on PostgreSQL,
 * whose files are the server's, every row of every table as text besides.
 */
export async function storedBytes(store: { sql: SqlDb }, dataDir: string): Promise<Buffer> {
  if (store.sql instanceof SqliteDb) store.sql.raw.pragma('wal_checkpoint(TRUNCATE)');
  const files = readdirSync(dataDir, { recursive: true }).map((f) => path.join(dataDir, String(f))).filter((f) => statSync(f).isFile());
  const parts = files.map((f) => readFileSync(f));
  if (store.sql.dialect === 'postgres') {
    const tables = await store.sql.all<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'");
    for (const { name } of tables) {
      const rows = await store.sql.all<{ row: string }>(`SELECT CAST(t AS TEXT) AS row FROM "${name}" t`);
      parts.push(Buffer.from(rows.map((r) => r.row).join('\n')));
    }
  }
  return Buffer.concat(parts);
}

/** The environment that puts a ringbase process this test spawns (the CLI) on the same database as a harness's store. */
export function databaseEnv(database: { url: string | null }): Record<string, string> {
  return database.url ? { RINGBASE_DATABASE_URL: database.url } : {};
}

/** The environment switch that puts harness-level tests on PostgreSQL (test/run-suite.ts sets it for its second half). */
export const STORE_VAR = 'RINGBASE_TEST_STORE';

/**
 * The database a test harness opens its store on: SQLite in its data dir, or, with RINGBASE_TEST_STORE=postgres,
 * a fresh database on the run's PostgreSQL server, dropped at the test's teardown.
 */
export async function harnessDatabase(t: Pick<Test, 'teardown'>): Promise<{ url: string | null; poolSize: number }> {
  if (process.env[STORE_VAR] !== 'postgres') return { url: null, poolSize: 1 };
  const server = process.env[URL_VAR];
  if (!server) throw new Error(`${STORE_VAR}=postgres needs ${URL_VAR} (test/run-suite.ts starts the server and sets it)`);
  const database = await createTestDatabase(server, process.env[TEMPLATE_VAR]);
  t.teardown(() => database.drop());
  return { url: database.url, poolSize: 4 };
}

/**
 * A fake clock's `advance` waits for the store's queries in flight on PostgreSQL (SQLite's run synchronously):
 * what a timer started in the store has finished, and the timers it sets are set, before time moves on.
 */
export function settleClockOnStore(t: Pick<Test, 'teardown'>, clock: Clock, sql: SqlDb): void {
  if (!(clock instanceof FakeClock) || !(sql instanceof PostgresDb)) return;
  const { pool } = sql;
  const busy = () => pool.waitingCount > 0 || pool.totalCount > pool.idleCount;
  // Looked at again when a connection goes back to the pool, or after 5 ms (one being opened or closed).
  const released = () => new Promise<void>((resolve) => {
    const done = () => { clearTimeout(timer); pool.off('release', done); resolve(); };
    const timer = setTimeout(done, 5);
    pool.on('release', done);
  });
  t.teardown(clock.settleOn(() => (busy() ? released() : undefined)));
}
