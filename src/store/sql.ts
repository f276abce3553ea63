// The store's database as its repositories see it, whichever backend holds it: SQLite (the embedded default, one
// file, one process writing at a time) or PostgreSQL (several control planes sharing one database). SQL is written
// once, in the dialect both accept, with `?` placeholders; each backend adapts what little differs (the PostgreSQL
// backend numbers the placeholders). Every call returns a promise, because PostgreSQL answers over a socket.
export type SqlValue = string | number | bigint | null | Buffer;
export type SqlParams = readonly SqlValue[];

export type Dialect = 'sqlite' | 'postgres';

export interface SqlRunResult {
  /** Rows inserted, updated or deleted. */
  changes: number;
}

/** Queries on the database, or inside one transaction. */
export interface SqlQueries {
  readonly dialect: Dialect;
  /** The first row, or undefined. */
  one<T>(sql: string, params?: SqlParams): Promise<T | undefined>;
  all<T>(sql: string, params?: SqlParams): Promise<T[]>;
  run(sql: string, params?: SqlParams): Promise<SqlRunResult>;
  /**
   * Runs `fn` once what was written through these queries is committed: after COMMIT inside a transaction (never
   * when it rolls back), at once outside one. For work that must see the rows, such as waking a worker that claims
   * them. `fn` must not throw: the transaction has committed by then.
   */
  afterCommit(fn: () => void): void;
}

export interface SqlDb extends SqlQueries {
  /**
   * Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. Queries made outside
   * `tx` meanwhile wait on SQLite (one connection) and run beside it on PostgreSQL (a pool), where the rows a
   * transaction must hold are locked explicitly (`FOR UPDATE`, conditional updates).
   */
  transaction<T>(fn: (tx: SqlQueries) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * The row-lock clause for a SELECT that reads rows it is about to change, inside a transaction: on PostgreSQL the
 * rows are locked (`skipLocked`: rows another transaction holds are passed over, for work queues; `keyShare`: the
 * rows are only kept from being deleted until the transaction ends, as for rows the transaction is about to
 * reference, while other transactions may read, update and key-share them too); SQLite has no such clause and needs
 * none, since its one writer holds the whole database for the transaction.
 */
export function rowLock(q: Pick<SqlQueries, 'dialect'>, opts: { skipLocked?: boolean; keyShare?: boolean } = {}): string {
  if (q.dialect === 'sqlite') return '';
  if (opts.keyShare) return ' FOR KEY SHARE';
  return opts.skipLocked ? ' FOR UPDATE SKIP LOCKED' : ' FOR UPDATE';
}
