import Database from 'better-sqlite3';
import path from 'node:path';
import { migrations } from './migrations.js';
import { ensurePrivateDir, makePrivate } from '../private-files.js';

export type Db = Database.Database;

/** Opens (creating if needed) the SQLite file and brings its schema to the newest version. */
export function openDb(file: string): Db {
  if (file !== ':memory:') ensurePrivateDir(path.dirname(file));
  const db = new Database(file);
  // SQLite gives the -wal and -shm files the database file's mode; older ones are set here too.
  if (file !== ':memory:') makePrivate(file);
  db.pragma('journal_mode = WAL');
  if (file !== ':memory:') for (const suffix of ['-wal', '-shm']) makePrivate(file + suffix);
  db.pragma('foreign_keys = ON');
  // The CLI and the server share the file; writers wait instead of failing with SQLITE_BUSY.
  db.pragma('busy_timeout = 5000');
  db.pragma('synchronous = NORMAL');
  migrate(db);
  cachePreparedStatements(db);
  return db;
}

// Bounded because a few queries build their WHERE clause from filters; there are few such shapes.
const STATEMENT_CACHE_LIMIT = 512;

/**
 * Repositories call db.prepare() on every query, which compiles the SQL again each time (a tenth of the CPU of a
 * simple API request). One statement per SQL text is reused instead; better-sqlite3 statements are reusable, and
 * each SQL text here is always used in one mode (plain or pluck).
 */
function cachePreparedStatements(db: Db): void {
  const compile = db.prepare.bind(db);
  const cache = new Map<string, ReturnType<Db['prepare']>>();
  db.prepare = ((sql: string) => {
    let statement = cache.get(sql);
    if (!statement) {
      if (cache.size >= STATEMENT_CACHE_LIMIT) cache.clear();
      statement = compile(sql);
      cache.set(sql, statement);
    }
    return statement;
  }) as Db['prepare'];
}

export function migrate(db: Db): void {
  const current = db.pragma('user_version', { simple: true }) as number;
  if (current > migrations.length) {
    throw new Error(`database schema version ${current} is newer than this build knows (${migrations.length})`);
  }
  for (let version = current; version < migrations.length; version++) {
    db.transaction(() => {
      db.exec(migrations[version]!);
      db.pragma(`user_version = ${version + 1}`);
    }).immediate();
  }
}
