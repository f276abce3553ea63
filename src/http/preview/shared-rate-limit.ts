// The preview root's request windows, shared by every control plane on one PostgreSQL database: a key's requests
// count the same whichever node they reach (docs/preview-api.md). The rules are FixedWindowLimiter's (rate-limit.ts:
// windows aligned on the clock, refused requests leave the count at the limit); a request is one statement
// (INSERT ... ON CONFLICT ... RETURNING, atomic on the key's row), and the table stays bounded like the in-memory map.
import type { Clock } from '../../clock.js';
import { pruneRows, type BoundedTable } from '../../store/bounded-rows.js';
import type { SqlDb } from '../../store/sql.js';
import { FixedWindowLimiter, windowDecision, windowStart, type RateDecision, type RateLimiter } from './rate-limit.js';

const WINDOWS: BoundedTable = { table: 'preview_rate_windows', key: 'key', time: 'started_at' };
/** As many keys as the in-memory map keeps before it sweeps. */
const MAX_WINDOWS = 10_000;

export class PostgresWindowLimiter implements RateLimiter {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock, readonly limit: number, private readonly windowMs: number) {}

  async take(key: string): Promise<RateDecision> {
    const now = this.clock.now();
    const startedAt = windowStart(now, this.windowMs);
    // A node whose clock is behind counts into the newer window a peer opened rather than restarting an older one.
    // Past the limit the count keeps growing, harmlessly: every request beyond it is refused alike.
    const row = (await this.sql.one<{ started_at: number; requests: number }>(`
      INSERT INTO preview_rate_windows (key, started_at, requests) VALUES (?, ?, 1)
      ON CONFLICT (key) DO UPDATE SET
        requests = CASE WHEN preview_rate_windows.started_at >= excluded.started_at THEN preview_rate_windows.requests + 1 ELSE 1 END,
        started_at = GREATEST(preview_rate_windows.started_at, excluded.started_at)
      RETURNING started_at, requests`, [key, startedAt]))!;
    // Only a new window can push the table past its bound.
    if (row.requests === 1) await pruneRows(this.sql, WINDOWS, startedAt - this.windowMs, MAX_WINDOWS);
    return windowDecision(this.limit, this.windowMs, row.started_at, row.requests, now);
  }
}

/** The limiter for a store on `sql`: shared through the database on PostgreSQL, in this process's memory on SQLite. */
export function rateLimiterFor(sql: SqlDb, clock: Clock, limit: number, windowMs: number): RateLimiter {
  return sql.dialect === 'postgres' ? new PostgresWindowLimiter(sql, clock, limit, windowMs) : new FixedWindowLimiter(clock, limit, windowMs);
}
