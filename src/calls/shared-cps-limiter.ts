// The calls-per-second cap as every control plane on one database sees it. On PostgreSQL, several processes place
// calls for the same account, so the sliding log lives in the database (cps_admissions: one row per call admitted
// in the last second) and each take holds a per-account advisory lock for its one statement: count the window,
// drop what left it, admit when there is room. On SQLite, the one process placing calls keeps the log in memory.
import type { Clock } from '../clock.js';
import type { SqlDb } from '../store/sql.js';
import { CPS_WINDOW_MS, CpsLimiter, cpsRefusal, type CallsPerSecondCap, type CpsSlot } from './cps-limiter.js';

/**
 * The advisory lock's first key (the two-key form: a space apart from the one-key form the migrations lock takes);
 * the second is the account id. Ids past 2^31 share a lock with a lower one: two accounts then wait for each other's
 * take, which costs a little time and nothing else.
 */
const CPS_LOCK_CLASS = 0x43505331; // "CPS1"
const INT4_RANGE = 2 ** 31;

export class PostgresCpsLimiter implements CallsPerSecondCap {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /**
   * One transaction: the lock, then one statement. Within it, the account's admissions still in the window are
   * counted, older ones deleted (so an account keeps at most `cap` rows), and this call admitted only if the count is
   * under the cap. The lock makes the count and the insert one step across processes; it ends with the transaction.
   */
  async take(accountId: number, cap: number): Promise<CpsSlot> {
    const now = this.clock.now();
    const cutoff = now - CPS_WINDOW_MS;
    const row = await this.sql.transaction(async (tx) => {
      await tx.one('SELECT pg_advisory_xact_lock(?, ?)', [CPS_LOCK_CLASS, accountId % INT4_RANGE]);
      // The statements of a WITH share one snapshot: `live` and `expired` look at disjoint rows, and `added` is
      // counted from its own RETURNING.
      return tx.one<{ live: number; oldest: number | null; admitted: number }>(`
        WITH live AS (SELECT COUNT(*) AS n, MIN(admitted_at) AS oldest FROM cps_admissions WHERE account_id = ? AND admitted_at > ?),
        expired AS (DELETE FROM cps_admissions WHERE account_id = ? AND admitted_at <= ?),
        added AS (INSERT INTO cps_admissions (account_id, admitted_at) SELECT ?, ? FROM live WHERE live.n < ? RETURNING id)
        SELECT live.n AS live, live.oldest AS oldest, (SELECT COUNT(*) FROM added) AS admitted FROM live`,
      [accountId, cutoff, accountId, cutoff, accountId, now, cap]);
    });
    if (row!.admitted === 1) return { ok: true, at: now };
    return cpsRefusal(row!.oldest ?? now, now);
  }
}

/** The cap for a store on `sql`: shared through the database on PostgreSQL, in this process's memory on SQLite. */
export function cpsCapFor(sql: SqlDb, clock: Clock): CallsPerSecondCap {
  return sql.dialect === 'postgres' ? new PostgresCpsLimiter(sql, clock) : new CpsLimiter(clock);
}
