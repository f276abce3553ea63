import type { SqlQueries } from '../../store/sql.js';

export interface DayStats { day: string; calls: number; answered: number }

const DAY_MS = 86_400_000;

/**
 * Calls an account placed or received per UTC day over the last `days` days, oldest first, with a row for every
 * day (zero when there were none). Dialled legs (calls with a parent) are counted with the call that made them.
 */
export async function callsPerDay(sql: SqlQueries, accountId: number, nowMs: number, days: number): Promise<DayStats[]> {
  const first = Math.floor(nowMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const rows = await sql.all<DayStats>(`SELECT substr(created_at, 1, 10) AS day, count(*) AS calls, count(answered_at) AS answered
    FROM calls WHERE account_id = ? AND parent_sid IS NULL AND created_at >= ? GROUP BY substr(created_at, 1, 10)`,
  [accountId, new Date(first).toISOString()]);
  const byDay = new Map(rows.map((r) => [r.day, r]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    return byDay.get(day) ?? { day, calls: 0, answered: 0 };
  });
}
