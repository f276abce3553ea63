// `ringbase db copy`: an existing SQLite installation moved into an empty PostgreSQL database. Every table is
// copied in one PostgreSQL transaction, parents before the rows that reference them, with ids kept (identity
// sequences then continue after the highest id); the row counts of source and target are compared before the
// commit, and any difference rolls the whole copy back. The SQLite file is only read.
import type Database from 'better-sqlite3';
import type { PostgresDb } from './postgres-db.js';
import type { SqlQueries, SqlValue } from './sql.js';

export interface CopiedTable { table: string; rows: number }

/** Rows per INSERT: well under PostgreSQL's 65,535 parameters per statement for the widest table. */
const BATCH_ROWS = 500;

/** The tables, each after the tables its foreign keys point to. */
export function tablesInDependencyOrder(source: Database.Database): string[] {
  const tables = source.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name").pluck().all() as string[];
  const parents = new Map(tables.map((t) => [t, (source.prepare(`PRAGMA foreign_key_list("${t}")`).all() as { table: string }[]).map((fk) => fk.table).filter((p) => p !== t)]));
  const ordered: string[] = [];
  const visit = (table: string, path: string[]) => {
    if (ordered.includes(table)) return;
    if (path.includes(table)) throw new Error(`foreign keys form a cycle: ${[...path, table].join(' -> ')}`);
    for (const parent of parents.get(table) ?? []) visit(parent, [...path, table]);
    ordered.push(table);
  };
  for (const table of tables) visit(table, []);
  return ordered;
}

async function copyTable(source: Database.Database, tx: SqlQueries, table: string): Promise<number> {
  const columns = (source.prepare(`PRAGMA table_info("${table}")`).all() as { name: string }[]).map((c) => c.name);
  const list = columns.map((c) => `"${c}"`).join(', ');
  const row = `(${columns.map(() => '?').join(', ')})`;
  let batch: SqlValue[][] = [];
  let copied = 0;
  const flush = async () => {
    if (batch.length === 0) return;
    await tx.run(`INSERT INTO "${table}" (${list}) VALUES ${batch.map(() => row).join(', ')}`, batch.flat());
    copied += batch.length;
    batch = [];
  };
  // iterate(): rows are read as they are copied, never all held in memory at once.
  for (const values of source.prepare(`SELECT ${list} FROM "${table}" ORDER BY rowid`).raw().iterate() as IterableIterator<SqlValue[]>) {
    batch.push(values);
    if (batch.length === BATCH_ROWS) await flush();
  }
  await flush();
  return copied;
}

export async function copySqliteToPostgres(source: Database.Database, target: PostgresDb): Promise<CopiedTable[]> {
  const tables = tablesInDependencyOrder(source);
  return target.transaction(async (tx) => {
    for (const table of tables) {
      const held = (await tx.one<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`))!.n;
      if (held > 0) throw new Error(`the target database already holds data (${table}: ${held} rows); copy into an empty database`);
    }
    const copied: CopiedTable[] = [];
    for (const table of tables) {
      const rows = await copyTable(source, tx, table);
      const inSource = (source.prepare(`SELECT COUNT(*) FROM "${table}"`).pluck().get() as number);
      const inTarget = (await tx.one<{ n: number }>(`SELECT COUNT(*) AS n FROM "${table}"`))!.n;
      if (rows !== inSource || inTarget !== inSource) throw new Error(`${table}: ${inSource} rows in SQLite, ${inTarget} in PostgreSQL after the copy; nothing was kept`);
      copied.push({ table, rows });
    }
    // Ids were copied as they were: each identity sequence continues after the highest one.
    const identities = await tx.all<{ table_name: string; column_name: string }>(
      "SELECT table_name, column_name FROM information_schema.columns WHERE table_schema = current_schema() AND is_identity = 'YES'",
    );
    for (const { table_name: table, column_name: column } of identities) {
      await tx.one(`SELECT setval(pg_get_serial_sequence(?, ?), COALESCE((SELECT MAX("${column}") FROM "${table}"), 0) + 1, false)`, [`"${table}"`, column]);
    }
    return copied;
  });
}
