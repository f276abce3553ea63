// The read caches' invalidation for a test database: SQLite's data_version on its connection, or a PostgreSQL
// listener of its own (closed at the test's teardown) that listens before the test goes on.
import type { Test } from 'tap';
import { PostgresListener } from '../../src/store/postgres-listener.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import { SqliteDataVersion, type CacheInvalidation } from '../../src/store/read-cache.js';
import type { SqlDb } from '../../src/store/sql.js';
import { SqliteDb } from '../../src/store/sqlite-db.js';
import { bounded } from './waits.js';

/** Tables whose reads the store caches (their LISTENs are in place when this resolves). */
export const CACHED_TABLES = ['accounts', 'api_keys', 'org_settings'];

export async function cacheInvalidationFor(t: Pick<Test, 'teardown'>, db: SqlDb, opts: { retryMs?: number } = {}): Promise<CacheInvalidation> {
  if (db instanceof SqliteDb) return new SqliteDataVersion(db.raw);
  if (!(db instanceof PostgresDb)) throw new Error('unknown backend');
  const listener = new PostgresListener({ url: db.pool.options.connectionString!, self: 'cache-test', ...opts });
  t.teardown(() => listener.close());
  await bounded('the cache listener to listen', 10_000, listener.listening(CACHED_TABLES));
  return listener;
}
