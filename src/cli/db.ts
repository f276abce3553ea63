// `ringbase db`: the database itself, without opening the store: bring it to the newest schema, and move an
// SQLite installation into PostgreSQL (docs/postgresql.md).
import type { Command } from 'commander';
import path from 'node:path';
import Database from 'better-sqlite3';
import type { Config } from '../config.js';
import { copySqliteToPostgres } from '../store/copy-to-postgres.js';
import { rebuildCallDays } from '../store/call-days.js';
import { migrate } from '../store/db.js';
import { migrations } from '../store/migrations.js';
import { DB_FILE, describeDatabase, openDatabase } from '../store/open-database.js';
import { PostgresDb } from '../store/postgres-db.js';
import { migratePostgres } from '../store/postgres-schema.js';
import { CliError } from './context.js';

/** Runs an action with the configuration and the --json flag, without opening the store (see main.ts). */
export type ConfigRunner = <A extends unknown[]>(fn: (cli: { config: Config; out(result: unknown, human: string | string[]): void }, ...args: A) => Promise<void>) => (...args: A) => Promise<void>;

function sqlitePath(value: string): string {
  const m = /^sqlite:(.+)$/.exec(value);
  if (!m) throw new CliError(`--from must be sqlite:PATH (the SQLite file to copy), got "${value.slice(0, 40)}"`);
  return path.resolve(m[1]!);
}

export function dbCommands(program: Command, run: ConfigRunner): void {
  const db = program.command('db').description('the database: schema migrations, moving SQLite to PostgreSQL, rebuilding counts');

  db.command('migrate').description('bring the database (RINGBASE_DATABASE_URL, or the SQLite file in the data dir) to the newest schema; on PostgreSQL under a lock, so nodes starting together migrate once')
    .action(run(async ({ config, out }) => {
      const database = await openDatabase(config);
      await database.close();
      out({ database: describeDatabase(config), schema_version: migrations.length }, `${describeDatabase(config)}: schema version ${migrations.length}`);
    }));

  db.command('rebuild-rollups').description('count the dashboard\'s calls per day again from the calls (after calls were written or removed by hand)')
    .action(run(async ({ config, out }) => {
      const database = await openDatabase(config);
      try {
        const days = await rebuildCallDays(database);
        out({ database: describeDatabase(config), call_days: days }, `${describeDatabase(config)}: calls per day counted again (${days} account-days)`);
      } finally {
        await database.close();
      }
    }));

  db.command('copy').description('copy an SQLite installation into an empty PostgreSQL database, row counts verified')
    .option('--from <sqlite:path>', 'the SQLite file (default: the one in the data dir)')
    .option('--to <postgres-url>', 'the PostgreSQL database (default: RINGBASE_DATABASE_URL)')
    .action(run(async ({ config, out }, flags: { from?: string; to?: string }) => {
      const from = flags.from ? sqlitePath(flags.from) : path.join(config.dataDir, DB_FILE);
      const to = flags.to ?? config.database.url;
      if (!to || !/^postgres(ql)?:\/\//i.test(to)) throw new CliError('--to must be a postgres:// or postgresql:// URL (or set RINGBASE_DATABASE_URL)');
      let source: Database.Database;
      try {
        source = new Database(from, { fileMustExist: true });
      } catch (err) {
        throw new CliError(`cannot open ${from}: ${(err as Error).message}`);
      }
      const target = new PostgresDb({ url: to, poolSize: 2 });
      try {
        // The source at the newest schema first, as a server start would do; from then on it is only read.
        migrate(source);
        await migratePostgres(target.pool);
        const copied = await copySqliteToPostgres(source, target);
        const where = describeDatabase({ dataDir: config.dataDir, database: { url: to, poolSize: 2 } });
        out({ from, to: where, tables: copied }, [`copied ${from} to ${where}:`, ...copied.map((c) => `  ${c.table}\t${c.rows}`)]);
      } finally {
        source.close();
        await target.close();
      }
    }));
}
