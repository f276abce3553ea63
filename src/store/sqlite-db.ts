// The SQLite backend of SqlDb: better-sqlite3, one connection, synchronous underneath. A query outside any
// transaction runs at once; a transaction holds the connection from BEGIN to COMMIT, and other queries and
// transactions wait for it (one connection cannot interleave them), in the order they asked.
import type Database from 'better-sqlite3';
import type { SqlDb, SqlParams, SqlQueries, SqlRunResult } from './sql.js';
import { inScope, refuseInside } from './transaction-scope.js';

type Statement = Database.Statement<unknown[]>;

function queriesOn(db: Database.Database): SqlQueries {
  // db.prepare is cached per SQL text (see db.ts).
  const statement = (sql: string): Statement => db.prepare<unknown[]>(sql);
  return {
    dialect: 'sqlite',
    one: <T>(sql: string, params: SqlParams = []) => settle(() => statement(sql).get(...(params as unknown[])) as T | undefined),
    all: <T>(sql: string, params: SqlParams = []) => settle(() => statement(sql).all(...(params as unknown[])) as T[]),
    run: (sql: string, params: SqlParams = []) => settle((): SqlRunResult => ({ changes: statement(sql).run(...(params as unknown[])).changes })),
    afterCommit: (fn: () => void) => fn(),
  };
}

/** A synchronous result (or its exception) as a settled promise. */
function settle<T>(fn: () => T): Promise<T> {
  try {
    return Promise.resolve(fn());
  } catch (err) {
    return Promise.reject(err as Error);
  }
}

export class SqliteDb implements SqlDb {
  readonly dialect = 'sqlite' as const;
  readonly #queries: SqlQueries;
  /** Settles when the transaction holding the connection ends; null when none does. */
  #held: Promise<void> | null = null;

  constructor(readonly raw: Database.Database) {
    this.#queries = queriesOn(raw);
  }

  one<T>(sql: string, params?: SqlParams): Promise<T | undefined> { return this.#free(() => this.#queries.one<T>(sql, params)); }
  all<T>(sql: string, params?: SqlParams): Promise<T[]> { return this.#free(() => this.#queries.all<T>(sql, params)); }
  run(sql: string, params?: SqlParams): Promise<SqlRunResult> { return this.#free(() => this.#queries.run(sql, params)); }
  afterCommit(fn: () => void): void { fn(); }

  async transaction<T>(fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
    refuseInside(this, 'a transaction');
    while (this.#held) await this.#held;
    let release!: () => void;
    this.#held = new Promise<void>((resolve) => { release = resolve; });
    const committed: Array<() => void> = [];
    let result: T;
    try {
      // IMMEDIATE: the write lock is taken at BEGIN, so another process's writer cannot make this one fail midway.
      this.raw.prepare('BEGIN IMMEDIATE').run();
      try {
        result = await inScope(this, () => fn({ ...this.#queries, afterCommit: (done) => { committed.push(done); } }));
        this.raw.prepare('COMMIT').run();
      } catch (err) {
        if (this.raw.inTransaction) this.raw.prepare('ROLLBACK').run();
        throw err;
      }
    } finally {
      this.#held = null;
      release();
    }
    for (const done of committed) done();
    return result;
  }

  async close(): Promise<void> {
    while (this.#held) await this.#held;
    this.raw.close();
  }

  #free<T>(query: () => Promise<T>): Promise<T> {
    if (!this.#held) return query();
    refuseInside(this, 'a query');
    return this.#afterTransactions(query);
  }

  async #afterTransactions<T>(query: () => Promise<T>): Promise<T> {
    while (this.#held) await this.#held;
    return query();
  }
}
