import type { Db } from './db.js';
import type { SqlDb, SqlQueries } from './sql.js';

/**
 * How a process learns that a cached table was changed by someone else (another process, another node), per
 * backend: SQLite counts the commits of other connections to its file (`PRAGMA data_version`); PostgreSQL tells
 * every listening process with `NOTIFY` when a write commits (postgres-listener.ts).
 */
export interface CacheInvalidation {
  /**
   * A number that changes whenever rows of `table` may have been changed elsewhere, or null while that cannot be
   * known (a transaction holds SQLite's connection; PostgreSQL's listening connection is down): then nothing may
   * be served from memory.
   */
  version(table: string): number | null;
  /** Makes a write of `table` through `q` known to the other processes once, and only if, its transaction commits. */
  announce(q: SqlQueries, table: string): Promise<void>;
}

/**
 * SQLite: the file's counter of commits made by other connections (the CLI, a second server). Read once per
 * event-loop turn: a turn runs without I/O, so its reads all see the file as at its start, and one request's reads
 * (key, account, trunk) cost one statement instead of three. Writes need no announcement: other connections see
 * them in this same counter.
 */
export class SqliteDataVersion implements CacheInvalidation {
  // No other query uses this SQL text, so pluck mode does not leak into the shared statement cache.
  readonly #statement: { get(): unknown };
  #version = -1;
  #fresh = false;

  constructor(private readonly raw: Db) {
    this.#statement = raw.prepare('PRAGMA data_version').pluck();
  }

  version(): number | null {
    // Inside a transaction the cache is bypassed, so a rolled-back write is never remembered.
    if (this.raw.inTransaction) return null;
    if (!this.#fresh) {
      this.#version = this.#statement.get() as number;
      this.#fresh = true;
      setImmediate(() => { this.#fresh = false; }).unref();
    }
    return this.#version;
  }

  announce(): Promise<void> { return Promise.resolve(); }
}

// Bounded so that reads of many distinct keys cannot grow memory without end; refilling is just a read.
const LIMIT = 10_000;

/**
 * Remembers one table's reads until the table may have changed. The table's repository writes it through write()
 * (so every write to a cached table goes through its repository), which forgets what this process remembers and
 * announces the change to the others; a change made elsewhere is seen through the CacheInvalidation's version and
 * forgets everything. Values are frozen: callers share them.
 */
export class ReadCache<V extends object> {
  readonly #entries = new Map<string, V>();
  readonly #changes: CacheInvalidation;
  #seenVersion: number | null = null;
  /** Bumped whenever entries are forgotten: a load that overlapped a change is returned but not remembered. */
  #epoch = 0;

  constructor(changes: CacheInvalidation, private readonly table: string) {
    this.#changes = changes;
  }

  /** The remembered value for `key`, or load()'s; an undefined result is not remembered. */
  async read(key: string, load: () => Promise<V | undefined>): Promise<V | undefined> {
    const version = this.#changes.version(this.table);
    if (version === null) return load();
    if (version !== this.#seenVersion) {
      this.invalidate();
      this.#seenVersion = version;
    }
    const known = this.#entries.get(key);
    if (known !== undefined) return known;
    const epoch = this.#epoch;
    return this.#remember(key, await load(), epoch);
  }

  /**
   * Runs `fn`, a write of the table, in one transaction with its announcement to the other processes; what this
   * process remembers is forgotten before (reads meanwhile are not remembered) and after (nor are reads that
   * raced it).
   */
  async write<T>(sql: SqlDb, fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
    this.invalidate();
    try {
      return await sql.transaction(async (tx) => {
        const result = await fn(tx);
        await this.#changes.announce(tx, this.table);
        return result;
      });
    } finally {
      this.invalidate();
    }
  }

  /** Forgets this process's entries only: for writes other processes need not hear of. */
  invalidate(): void {
    this.#entries.clear();
    this.#epoch++;
  }

  #remember(key: string, value: V | undefined, epoch: number): V | undefined {
    if (value === undefined || epoch !== this.#epoch || this.#changes.version(this.table) !== this.#seenVersion) return value;
    if (this.#entries.size >= LIMIT) this.#entries.clear();
    this.#entries.set(key, deepFreeze(value));
    return value;
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const field of Object.values(value)) if (field !== null && typeof field === 'object') deepFreeze(field as object);
  return Object.freeze(value);
}
