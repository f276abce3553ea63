// Tables that hold short-lived shared state (limits several control planes share on PostgreSQL) stay bounded: rows
// past their time go, and beyond a maximum the oldest go first, as the in-memory tables they stand for forget.
import type { SqlQueries } from './sql.js';

export interface BoundedTable {
  table: string;
  /** The key columns, comma-separated (`source, key_id`). */
  key: string;
  /** The column with the row's time (epoch milliseconds): what decides age. */
  time: string;
}

/**
 * Deletes the rows of `t` whose time is at or before `expiredAt`, and those older than the `max` newest. PostgreSQL
 * only (`FOR UPDATE SKIP LOCKED`): a row another transaction holds is left for a later prune, so a prune never waits
 * for a writer, and never deadlocks with one. Run it as a statement of its own, not in a writer's transaction.
 */
export async function pruneRows(q: SqlQueries, t: BoundedTable, expiredAt: number, max: number): Promise<void> {
  await q.run(`DELETE FROM ${t.table} WHERE (${t.key}) IN (
    SELECT ${t.key} FROM ${t.table}
    WHERE ${t.time} <= ? OR ${t.time} < (SELECT ${t.time} FROM ${t.table} ORDER BY ${t.time} DESC LIMIT 1 OFFSET ?)
    FOR UPDATE SKIP LOCKED)`, [expiredAt, max - 1]);
}
