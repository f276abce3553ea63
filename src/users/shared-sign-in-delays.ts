// Dashboard sign-in delays per (email, source) shared by every control plane on one PostgreSQL database: failures
// made on one node make the pair wait on all of them. The rules are SignInDelays' (sign-in-delay.ts); the pairs live
// in sign_in_failures, a failure counted by one statement (INSERT ... ON CONFLICT ... RETURNING, atomic on the row),
// the table bounded like the in-memory map (pairs quiet for a day go; beyond 10,000 the stalest go first). Each
// sign-in attempt reads its pair once: a round trip beside the scrypt work every attempt costs anyway.
import type { Clock } from '../clock.js';
import { pruneRows, type BoundedTable } from '../store/bounded-rows.js';
import type { SqlDb } from '../store/sql.js';
import {
  countedEmail, DEFAULT_MAX_PAIRS, FORGET_MS, secondsUntil, SignInDelays, waitAfter, type SignInDelayLimit,
} from './sign-in-delay.js';

const PAIRS: BoundedTable = { table: 'sign_in_failures', key: 'email, source', time: 'last_failure_at' };

export class PostgresSignInDelays implements SignInDelayLimit {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock, private readonly maxPairs = DEFAULT_MAX_PAIRS) {}

  async waitFor(email: string, source: string): Promise<number> {
    const now = this.clock.now();
    const pair = await this.sql.one<{ failures: number; last_failure_at: number }>(
      'SELECT failures, last_failure_at FROM sign_in_failures WHERE email = ? AND source = ? AND last_failure_at > ?',
      [countedEmail(email), source, now - FORGET_MS]);
    return pair ? secondsUntil(pair.last_failure_at + waitAfter(pair.failures) * 1000, now) : 0;
  }

  async recordFailure(email: string, source: string): Promise<number> {
    const now = this.clock.now();
    const forgotten = now - FORGET_MS;
    const { failures } = (await this.sql.one<{ failures: number }>(`
      INSERT INTO sign_in_failures (email, source, failures, last_failure_at) VALUES (?, ?, 1, ?)
      ON CONFLICT (email, source) DO UPDATE SET
        failures = CASE WHEN sign_in_failures.last_failure_at <= ? THEN 1 ELSE sign_in_failures.failures + 1 END,
        last_failure_at = excluded.last_failure_at
      RETURNING failures`, [countedEmail(email), source, now, forgotten]))!;
    // Only a new pair (or one starting again) can push the table past its bound.
    if (failures === 1) await pruneRows(this.sql, PAIRS, forgotten, this.maxPairs);
    return waitAfter(failures);
  }

  async clear(email: string, source: string): Promise<void> {
    await this.sql.run('DELETE FROM sign_in_failures WHERE email = ? AND source = ?', [countedEmail(email), source]);
  }
}

/** The delays for a store on `sql`: shared through the database on PostgreSQL, in this process's memory on SQLite. */
export function signInDelaysFor(sql: SqlDb, clock: Clock): SignInDelayLimit {
  return sql.dialect === 'postgres' ? new PostgresSignInDelays(sql, clock) : new SignInDelays(clock);
}
