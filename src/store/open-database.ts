// The store's database as the configuration names it: the SQLite file in the data dir (the default), or the
// PostgreSQL database of RINGBASE_DATABASE_URL, brought to the newest schema either way before anything uses it.
import path from 'node:path';
import type { Config } from '../config.js';
import { openDb } from './db.js';
import { PostgresDb } from './postgres-db.js';
import { migratePostgres } from './postgres-schema.js';
import type { SqlDb } from './sql.js';
import { SqliteDb } from './sqlite-db.js';

export const DB_FILE = 'ringbase.db';

/** Where the database is, for messages and logs: a PostgreSQL URL without its password. */
export function describeDatabase(config: Pick<Config, 'dataDir' | 'database'>): string {
  const url = config.database.url;
  if (!url) return `sqlite:${path.join(config.dataDir, DB_FILE)}`;
  return url.replace(/^([a-z]+:\/\/[^:@/]*):[^@/]*@/i, '$1:***@');
}

export async function openDatabase(config: Pick<Config, 'dataDir' | 'database'>): Promise<SqlDb> {
  const { url, poolSize } = config.database;
  if (!url) return new SqliteDb(openDb(path.join(config.dataDir, DB_FILE)));
  const db = new PostgresDb({ url, poolSize });
  try {
    await migratePostgres(db.pool);
  } catch (err) {
    await db.close().catch(() => undefined);
    throw new Error(`cannot use the PostgreSQL database ${describeDatabase(config)}: ${(err as Error).message}`);
  }
  return db;
}
