// The PostgreSQL backend of SqlDb: a pg pool. SQL arrives with `?` placeholders (the dialect both backends
// share) and is sent with PostgreSQL's numbered ones, as a named prepared statement, so each connection parses a
// given query once. BIGINT (ids, counts, millisecond times) and NUMERIC (sums) come back as numbers, as SQLite
// gives them: the values stored here stay far below 2^53.
import pg from 'pg';
import type { SqlDb, SqlParams, SqlQueries, SqlRunResult } from './sql.js';
import { inScope, refuseInside } from './transaction-scope.js';

const INT8_OID = 20;
const NUMERIC_OID = 1700;

const types = {
  getTypeParser(oid: number, format?: 'text' | 'binary') {
    if (oid === INT8_OID || oid === NUMERIC_OID) return (value: string) => Number(value);
    return pg.types.getTypeParser(oid, format);
  },
};

/**
 * `?` placeholders as `$1`, `$2`, …, skipping quoted strings, quoted identifiers and comments. A `?` the SQL
 * means literally would have to be written otherwise; the store's SQL has none.
 */
export function numberPlaceholders(sql: string): string {
  let out = '';
  let n = 0;
  for (let i = 0; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = closingQuote(sql, i, c);
      out += sql.slice(i, end + 1);
      i = end;
    } else if (c === '-' && sql[i + 1] === '-') {
      const end = sql.indexOf('\n', i);
      const stop = end < 0 ? sql.length : end;
      out += sql.slice(i, stop);
      i = stop - 1;
    } else if (c === '?') {
      out += `$${++n}`;
    } else {
      out += c;
    }
  }
  return out;
}

/** Where a quoted run that opens at `start` closes (a doubled quote is part of it). */
function closingQuote(sql: string, start: number, quote: string): number {
  let i = start + 1;
  for (;;) {
    const end = sql.indexOf(quote, i);
    if (end < 0) throw new Error(`unterminated ${quote} in SQL: ${sql.slice(start, start + 40)}`);
    if (sql[end + 1] !== quote) return end;
    i = end + 2;
  }
}

/** Each SQL text's numbered form and statement name, shared by every connection of the pool. */
class StatementNames {
  readonly #byText = new Map<string, { name: string; text: string }>();

  of(sql: string): { name: string; text: string } {
    let known = this.#byText.get(sql);
    if (!known) {
      known = { name: `q${this.#byText.size + 1}`, text: numberPlaceholders(sql) };
      this.#byText.set(sql, known);
    }
    return known;
  }
}

type Queryable = Pick<pg.Pool, 'query'> | Pick<pg.PoolClient, 'query'>;

function queriesOn(target: Queryable, names: StatementNames, afterCommit: SqlQueries['afterCommit']): SqlQueries {
  const send = async (sql: string, params: SqlParams = []) => {
    const { name, text } = names.of(sql);
    return target.query({ name, text, values: params as unknown[] });
  };
  return {
    dialect: 'postgres',
    one: async <T>(sql: string, params?: SqlParams) => (await send(sql, params)).rows[0] as T | undefined,
    all: async <T>(sql: string, params?: SqlParams) => (await send(sql, params)).rows as T[],
    run: async (sql: string, params?: SqlParams): Promise<SqlRunResult> => ({ changes: (await send(sql, params)).rowCount ?? 0 }),
    afterCommit,
  };
}

export interface PostgresOptions {
  url: string;
  /** Connections this process keeps at most. */
  poolSize: number;
}

export class PostgresDb implements SqlDb {
  readonly dialect = 'postgres' as const;
  readonly pool: pg.Pool;
  readonly #names = new StatementNames();
  readonly #queries: SqlQueries;

  constructor(opts: PostgresOptions) {
    this.pool = new pg.Pool({ connectionString: opts.url, max: opts.poolSize, types });
    // An idle connection the server drops (a restart, a failover) is replaced by the pool; without a listener
    // its error would end the process.
    this.pool.on('error', () => undefined);
    this.#queries = queriesOn(this.pool, this.#names, (fn) => fn());
  }

  one<T>(sql: string, params?: SqlParams): Promise<T | undefined> { refuseInside(this, 'a query'); return this.#queries.one<T>(sql, params); }
  all<T>(sql: string, params?: SqlParams): Promise<T[]> { refuseInside(this, 'a query'); return this.#queries.all<T>(sql, params); }
  run(sql: string, params?: SqlParams): Promise<SqlRunResult> { refuseInside(this, 'a query'); return this.#queries.run(sql, params); }
  afterCommit(fn: () => void): void { fn(); }

  async transaction<T>(fn: (tx: SqlQueries) => Promise<T>): Promise<T> {
    refuseInside(this, 'a transaction');
    const client = await this.pool.connect();
    let broken = false;
    const committed: Array<() => void> = [];
    let result: T;
    try {
      await client.query('BEGIN');
      try {
        result = await inScope(this, () => fn(queriesOn(client, this.#names, (done) => { committed.push(done); })));
        await client.query('COMMIT');
      } catch (err) {
        await client.query('ROLLBACK').catch(() => { broken = true; });
        throw err;
      }
    } finally {
      // A connection that could not even roll back is closed rather than handed to the next caller.
      client.release(broken);
    }
    for (const done of committed) done();
    return result;
  }

  close(): Promise<void> { return this.pool.end(); }
}
