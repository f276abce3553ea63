import type { SqlQueries } from '../../store/sql.js';
import { callDays } from '../../store/call-days.js';

export interface DayStats { day: string; calls: number; answered: number }

const DAY_MS = 86_400_000;

/**
 * Calls an account placed or received per UTC day over the last `days` days, oldest first, with a row for every
 * day (zero when there were none). Dialled legs (calls with a parent) are counted with the call that made them.
 * Read from the per-day counts the calls keep (src/store/call-days.ts): at 100,000 calls, counting them here took
 * ten times what the call log's first page takes.
 */
export async function callsPerDay(sql: SqlQueries, accountId: number, nowMs: number, days: number): Promise<DayStats[]> {
  const first = Math.floor(nowMs / DAY_MS) * DAY_MS - (days - 1) * DAY_MS;
  const byDay = new Map((await callDays(sql, accountId, new Date(first).toISOString().slice(0, 10))).map((r) => [r.day, r]));
  return Array.from({ length: days }, (_, i) => {
    const day = new Date(first + i * DAY_MS).toISOString().slice(0, 10);
    const counted = byDay.get(day);
    return { day, calls: counted?.calls ?? 0, answered: counted?.answered ?? 0 };
  });
}
