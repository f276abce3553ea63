// Failed API-key (and operator-token) attempts per source, shared by every control plane on one PostgreSQL
// database: an address that fails on one node is throttled on all of them, and a key that worked from an address
// on one node stays usable from there on the others. The rules are AuthThrottle's (auth-throttle.ts); the counts
// live in auth_failure_windows and auth_known_keys, each change one statement (INSERT ... ON CONFLICT ... RETURNING,
// atomic on the row), both tables bounded like the in-memory maps.
//
// Hot path: a valid key this process admitted from that address within the last minute is admitted again without
// a database round trip (the process remembers what it wrote). The database is consulted only for failures, for
// valid keys this process has not seen from that address lately, and once a minute per known key to renew its row
// for the other nodes.
import type { Clock } from '../clock.js';
import { pruneRows, type BoundedTable } from '../store/bounded-rows.js';
import type { SqlDb } from '../store/sql.js';
import {
  AuthThrottle, DEFAULT_KNOWN_KEY_MS, DEFAULT_MAX_ENTRIES, forgetOldest, RENEW_AFTER_MS,
  type AuthFailureLimit, type AuthThrottleOptions,
} from './auth-throttle.js';

const WINDOWS: BoundedTable = { table: 'auth_failure_windows', key: 'source', time: 'started_at' };
const KNOWN_KEYS: BoundedTable = { table: 'auth_known_keys', key: 'source, key_id', time: 'seen_at' };

export class PostgresAuthThrottle implements AuthFailureLimit {
  /** When this process last wrote each `source key` it admitted, in that order (oldest first). */
  readonly #written = new Map<string, number>();
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #knownKeyMs: number;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, opts: AuthThrottleOptions) {
    this.#limit = opts.limit;
    this.#windowMs = opts.windowMs;
    this.#maxEntries = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#knownKeyMs = opts.knownKeyMs ?? DEFAULT_KNOWN_KEY_MS;
  }

  async admit(source: string, keyId: number): Promise<number> {
    const now = this.clock.now();
    const writtenAt = this.#written.get(`${source} ${keyId}`);
    if (writtenAt !== undefined && now - writtenAt < this.#knownKeyMs) {
      // Known from this address: no question to ask the database, at most the row to renew.
      if (now - writtenAt >= RENEW_AFTER_MS) await this.#remember(source, keyId, now);
      return 0;
    }
    const row = await this.sql.one<{ throttled_since: number | null; known: number }>(`
      SELECT (SELECT started_at FROM auth_failure_windows WHERE source = ? AND started_at > ? AND failures >= ?) AS throttled_since,
        (SELECT COUNT(*) FROM auth_known_keys WHERE source = ? AND key_id = ? AND seen_at > ?) AS known`,
    [source, now - this.#windowMs, this.#limit, source, keyId, now - this.#knownKeyMs]);
    if (row!.throttled_since !== null && row!.known === 0) return this.#secondsLeft(row!.throttled_since, now);
    await this.#remember(source, keyId, now);
    return 0;
  }

  /**
   * One statement counts the failure: a live window gets one more, an ended one (or none) starts again at 1. Past
   * the limit the count keeps growing, harmlessly: the window's start alone says when it ends.
   */
  async fail(source: string): Promise<number> {
    const now = this.clock.now();
    const ended = now - this.#windowMs;
    const row = (await this.sql.one<{ started_at: number; failures: number }>(`
      INSERT INTO auth_failure_windows (source, started_at, failures) VALUES (?, ?, 1)
      ON CONFLICT (source) DO UPDATE SET
        started_at = CASE WHEN auth_failure_windows.started_at <= ? THEN excluded.started_at ELSE auth_failure_windows.started_at END,
        failures = CASE WHEN auth_failure_windows.started_at <= ? THEN 1 ELSE auth_failure_windows.failures + 1 END
      RETURNING started_at, failures`, [source, now, ended, ended]))!;
    // Only a new window can push the table past its bound.
    if (row.failures === 1) await pruneRows(this.sql, WINDOWS, ended, this.#maxEntries);
    return row.failures > this.#limit ? this.#secondsLeft(row.started_at, now) : 0;
  }

  #secondsLeft(startedAt: number, now: number): number {
    return Math.max(1, Math.ceil((startedAt + this.#windowMs - now) / 1000));
  }

  async #remember(source: string, keyId: number, now: number): Promise<void> {
    await this.sql.run(`INSERT INTO auth_known_keys (source, key_id, seen_at) VALUES (?, ?, ?)
      ON CONFLICT (source, key_id) DO UPDATE SET seen_at = excluded.seen_at`, [source, keyId, now]);
    await pruneRows(this.sql, KNOWN_KEYS, now - this.#knownKeyMs, this.#maxEntries);
    const id = `${source} ${keyId}`;
    this.#written.delete(id);
    forgetOldest(this.#written, (at) => now - at >= this.#knownKeyMs, this.#maxEntries);
    this.#written.set(id, now);
  }
}

/** The throttle for a store on `sql`: shared through the database on PostgreSQL, in this process's memory on SQLite. */
export function authThrottleFor(sql: SqlDb, clock: Clock, opts: AuthThrottleOptions): AuthFailureLimit {
  return sql.dialect === 'postgres' ? new PostgresAuthThrottle(sql, clock, opts) : new AuthThrottle(clock, opts);
}
