import type { Db } from './db.js';

interface VersionWatch { statement: { get(): unknown }; version: number; fresh: boolean }

const watches = new WeakMap<Db, VersionWatch>();

/**
 * SQLite's counter of commits made by other connections to the file (other processes: the CLI, a second server).
 * Read once per event-loop turn: a turn runs without I/O, so its reads all see the file as at its start, and one
 * request's reads (key, account, trunk) cost one statement instead of three.
 */
function dataVersion(db: Db): number {
  let watch = watches.get(db);
  if (!watch) {
    // No other query uses this SQL text, so pluck mode does not leak into the shared statement cache.
    watch = { statement: db.prepare('PRAGMA data_version').pluck(), version: -1, fresh: false };
    watches.set(db, watch);
  }
  if (!watch.fresh) {
    watch.version = watch.statement.get() as number;
    watch.fresh = true;
    const current = watch;
    setImmediate(() => { current.fresh = false; }).unref();
  }
  return watch.version;
}

// Bounded so that reads of many distinct keys cannot grow memory without end; refilling is just a read.
const LIMIT = 10_000;

/**
 * Remembers one table's reads until the table may have changed. The table's repository calls invalidate() on each
 * of its writes (so every write to a cached table goes through its repository); a commit by another connection
 * is seen through `PRAGMA data_version` and forgets everything. Inside a transaction the cache is bypassed, so a
 * rolled-back write is never remembered. Values are frozen: callers share them.
 */
export class ReadCache<V extends object> {
  readonly #entries = new Map<string, V>();
  #seenVersion = -1;

  constructor(private readonly db: Db) {}

  /** The remembered value for `key`, or load()'s; an undefined result is not remembered. */
  read(key: string, load: () => V | undefined): V | undefined {
    if (this.db.inTransaction) return load();
    const version = dataVersion(this.db);
    if (version !== this.#seenVersion) {
      this.#entries.clear();
      this.#seenVersion = version;
    }
    const known = this.#entries.get(key);
    if (known !== undefined) return known;
    const value = load();
    if (value === undefined) return undefined;
    if (this.#entries.size >= LIMIT) this.#entries.clear();
    this.#entries.set(key, deepFreeze(value));
    return value;
  }

  invalidate(): void {
    this.#entries.clear();
  }
}

function deepFreeze<T extends object>(value: T): T {
  for (const field of Object.values(value)) if (field !== null && typeof field === 'object') deepFreeze(field as object);
  return Object.freeze(value);
}
