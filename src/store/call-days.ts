// Calls per account and UTC day (placed or received; dialled legs count with the call that made them) and how many
// of them were answered: what the dashboard's home page charts. Kept as calls are created and answered, in the same
// transaction, so the page reads one row per day shown instead of counting the account's calls (docs/dashboard.md);
// `ringbase db rebuild-rollups` counts them again from the calls.
import type { SqlDb, SqlQueries } from './sql.js';

/** The rows, as the calls table says they should be; the migration that made the table filled it so. */
export const CALL_DAYS_FROM_CALLS = `SELECT account_id, substr(created_at, 1, 10) AS day, count(*) AS calls, count(answered_at) AS answered FROM calls
  WHERE parent_sid IS NULL GROUP BY account_id, substr(created_at, 1, 10)`;

export interface DayCount { day: string; calls: number; answered: number }

/** Counts a call (created) or its answer on the UTC day it was created, in the caller's transaction. */
export async function countCall(q: SqlQueries, call: { account_id: number; created_at: string; parent_sid: string | null }, what: 'created' | 'answered'): Promise<void> {
  if (call.parent_sid !== null) return;
  await q.run(`INSERT INTO call_days (account_id, day, calls, answered) VALUES (?, ?, ?, ?)
    ON CONFLICT (account_id, day) DO UPDATE SET calls = call_days.calls + excluded.calls, answered = call_days.answered + excluded.answered`,
  [call.account_id, call.created_at.slice(0, 10), what === 'created' ? 1 : 0, what === 'answered' ? 1 : 0]);
}

/** The account's days from `firstDay` (YYYY-MM-DD) on that had calls, in no particular order. */
export function callDays(q: SqlQueries, accountId: number, firstDay: string): Promise<DayCount[]> {
  return q.all<DayCount>('SELECT day, calls, answered FROM call_days WHERE account_id = ? AND day >= ?', [accountId, firstDay]);
}

/** Counts every day again from the calls, in one transaction; returns how many account-days there are. */
export async function rebuildCallDays(sql: SqlDb): Promise<number> {
  return sql.transaction(async (tx) => {
    await tx.run('DELETE FROM call_days');
    return (await tx.run(`INSERT INTO call_days (account_id, day, calls, answered) ${CALL_DAYS_FROM_CALLS}`)).changes;
  });
}
