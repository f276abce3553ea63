// Both backends end their migrations with the same schema shape: tables, columns (with nullability and type
// class), primary keys, foreign keys, and indexes (columns, uniqueness, partial or not). Index names are compared
// for the indexes migrations name; the ones each database makes for a UNIQUE or PRIMARY KEY constraint are
// compared by what they cover.
import t from 'tap';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import Database from 'better-sqlite3';
import { openDb } from '../../src/store/db.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import { migratePostgres, VERSION_TABLE } from '../../src/store/postgres-schema.js';
import { createTestDatabase, postgresOrSkip } from '../helpers/postgres.js';

interface Shape {
  columns: string[];
  foreignKeys: string[];
  indexes: string[];
}

/** SQLite's and PostgreSQL's names for the same kinds of column. */
function typeClass(type: string): string {
  const upper = type.toUpperCase();
  if (/INT/.test(upper)) return 'integer';
  if (/TEXT|CHAR/.test(upper)) return 'text';
  if (/REAL|DOUBLE|FLOAT/.test(upper)) return 'real';
  if (/BLOB|BYTEA/.test(upper)) return 'blob';
  return upper;
}

function sqliteShape(db: Database.Database): Shape {
  const shape: Shape = { columns: [], foreignKeys: [], indexes: [] };
  const tables = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  for (const table of tables) {
    const columns = db.prepare(`PRAGMA table_info(${table})`).all() as { name: string; type: string; notnull: number; pk: number }[];
    const pk = columns.filter((c) => c.pk > 0).sort((a, b) => a.pk - b.pk).map((c) => c.name);
    for (const c of columns) shape.columns.push(`${table}.${c.name} ${typeClass(c.type)}${c.notnull || c.pk ? ' not null' : ''}`);
    shape.indexes.push(`${table} unique (${pk.join(', ')}) primary`);
    const fks = db.prepare(`PRAGMA foreign_key_list(${table})`).all() as { table: string; from: string; to: string; on_delete: string }[];
    for (const fk of fks) shape.foreignKeys.push(`${table}.${fk.from} -> ${fk.table}.${fk.to} on delete ${fk.on_delete.toLowerCase()}`);
    const indexes = db.prepare(`PRAGMA index_list(${table})`).all() as { name: string; unique: number; origin: string; partial: number }[];
    for (const index of indexes) {
      if (index.origin === 'pk') continue;
      const cols = (db.prepare(`PRAGMA index_info(${index.name})`).all() as { name: string }[]).map((c) => c.name);
      const name = index.origin === 'c' ? index.name : '(constraint)';
      shape.indexes.push(`${table} ${index.unique ? 'unique' : 'index'} (${cols.join(', ')})${index.partial ? ' partial' : ''} ${name}`);
    }
  }
  return sortShape(shape);
}

async function postgresShape(db: PostgresDb): Promise<Shape> {
  const shape: Shape = { columns: [], foreignKeys: [], indexes: [] };
  const columns = await db.all<{ table_name: string; column_name: string; data_type: string; is_nullable: string }>(
    "SELECT table_name, column_name, data_type, is_nullable FROM information_schema.columns WHERE table_schema = 'public' AND table_name <> ?",
    [VERSION_TABLE],
  );
  for (const c of columns) shape.columns.push(`${c.table_name}.${c.column_name} ${typeClass(c.data_type)}${c.is_nullable === 'NO' ? ' not null' : ''}`);
  const fks = await db.all<{ tbl: string; col: string; ref_tbl: string; ref_col: string; on_delete: string }>(`
    SELECT kcu.table_name AS tbl, kcu.column_name AS col, ccu.table_name AS ref_tbl, ccu.column_name AS ref_col, rc.delete_rule AS on_delete
    FROM information_schema.referential_constraints rc
    JOIN information_schema.key_column_usage kcu ON kcu.constraint_name = rc.constraint_name AND kcu.constraint_schema = rc.constraint_schema
    JOIN information_schema.constraint_column_usage ccu ON ccu.constraint_name = rc.unique_constraint_name AND ccu.constraint_schema = rc.unique_constraint_schema
    WHERE rc.constraint_schema = 'public'`);
  for (const fk of fks) shape.foreignKeys.push(`${fk.tbl}.${fk.col} -> ${fk.ref_tbl}.${fk.ref_col} on delete ${fk.on_delete.toLowerCase()}`);
  const indexes = await db.all<{ tbl: string; name: string; is_unique: boolean; is_primary: boolean; partial: boolean; constraint_backed: boolean; cols: string[] }>(`
    SELECT t.relname AS tbl, i.relname AS name, x.indisunique AS is_unique, x.indisprimary AS is_primary,
           x.indpred IS NOT NULL AS partial, EXISTS (SELECT 1 FROM pg_constraint c WHERE c.conindid = x.indexrelid) AS constraint_backed,
           ARRAY(SELECT a.attname FROM unnest(x.indkey) WITH ORDINALITY k(attnum, n) JOIN pg_attribute a ON a.attrelid = t.oid AND a.attnum = k.attnum ORDER BY k.n)::text[] AS cols
    FROM pg_index x JOIN pg_class t ON t.oid = x.indrelid JOIN pg_class i ON i.oid = x.indexrelid JOIN pg_namespace ns ON ns.oid = t.relnamespace
    WHERE ns.nspname = 'public' AND t.relname <> ?`, [VERSION_TABLE]);
  for (const index of indexes) {
    if (index.is_primary) { shape.indexes.push(`${index.tbl} unique (${index.cols.join(', ')}) primary`); continue; }
    const name = index.constraint_backed ? '(constraint)' : index.name;
    shape.indexes.push(`${index.tbl} ${index.is_unique ? 'unique' : 'index'} (${index.cols.join(', ')})${index.partial ? ' partial' : ''} ${name}`);
  }
  return sortShape(shape);
}

function sortShape(shape: Shape): Shape {
  return { columns: shape.columns.sort(), foreignKeys: shape.foreignKeys.sort(), indexes: shape.indexes.sort() };
}

t.test('SQLite and PostgreSQL migrations produce the same schema shape', async (t) => {
  const server = await postgresOrSkip(t);
  if (!server) return;
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-shape-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const sqlite = openDb(path.join(dir, 'shape.db'));
  t.teardown(() => sqlite.close());
  const database = await createTestDatabase(server);
  t.teardown(() => database.drop());
  const pg = new PostgresDb({ url: database.url, poolSize: 2 });
  t.teardown(() => pg.close());
  await migratePostgres(pg.pool);

  const expected = sqliteShape(sqlite);
  const actual = await postgresShape(pg);
  t.ok(expected.columns.length > 100, `the SQLite schema has its columns (${expected.columns.length})`);
  t.same(actual.columns, expected.columns, 'columns: names, type class, nullability');
  t.same(actual.foreignKeys, expected.foreignKeys, 'foreign keys and their ON DELETE');
  t.same(actual.indexes, expected.indexes, 'primary keys and indexes');
});

t.test('two nodes migrating one database together: one applies the migrations, the other finds them done', async (t) => {
  const server = await postgresOrSkip(t);
  if (!server) return;
  const database = await createTestDatabase(server);
  t.teardown(() => database.drop());
  const nodes = [new PostgresDb({ url: database.url, poolSize: 2 }), new PostgresDb({ url: database.url, poolSize: 2 })];
  t.teardown(() => Promise.all(nodes.map((n) => n.close())));
  const results = await Promise.all(nodes.map((n) => migratePostgres(n.pool)));
  t.same(results.map((r) => r.from).sort(), [0, results[0]!.to], 'one started from an empty database, the other from the newest version');
  t.same((await nodes[0]!.one<{ version: number }>(`SELECT version FROM ${VERSION_TABLE}`))?.version, results[0]!.to);
});
