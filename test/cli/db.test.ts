// `ringbase db migrate`, `ringbase db copy` and `ringbase db rebuild-rollups`: an SQLite installation moved into
// PostgreSQL with every row, ids kept and sequences continuing after them; a target that already holds data refused
// with nothing written; the calls per day counted again from rows written around the repository.
// SQLite by nature: it seeds an SQLite installation and picks the PostgreSQL database itself, so it is listed
// SQLite-only in test/run-suite.ts (the PostgreSQL half would run the same again).
import t from 'tap';
import path from 'node:path';
import { openDb } from '../../src/store/db.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import { tempDir } from '../helpers/harness.js';
import { createTestDatabase, postgresOrSkip } from '../helpers/postgres.js';
import { cli } from '../helpers/spawn.js';

const NOW = '2026-11-26T00:00:00.000Z';

/** An installation's file with rows in parent and child tables, and a gap in the ids (a deleted account). */
function installation(dir: string): string {
  const file = path.join(dir, 'ringbase.db');
  const db = openDb(file);
  const account = db.prepare('INSERT INTO accounts (name, trunk_capacity, created_at) VALUES (?, 3, ?)');
  for (const name of ['Acme', 'Gone', 'Beta']) account.run(name, NOW);
  db.prepare("DELETE FROM accounts WHERE name = 'Gone'").run();
  db.prepare("INSERT INTO api_keys (account_id, key_hash, prefix, last4, created_at) VALUES (3, 'h1', 'sk_live_abcd', 'wxyz', ?)").run(NOW);
  db.prepare("INSERT INTO numbers (e164, account_id, settings, created_at) VALUES ('+15550001', 1, '{}', ?)").run(NOW);
  db.prepare("INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, number_id, created_at) VALUES ('CA1', 1, 'inbound', '+1555', '+15550001', 'completed', 1, ?)").run(NOW);
  for (let i = 0; i < 1200; i++) db.prepare("INSERT INTO call_timeline (call_sid, at, kind, detail) VALUES ('CA1', ?, 'ringing', ?)").run(NOW, `{"n":${i}}`);
  db.close();
  return file;
}

t.test('db copy moves every row, keeps ids, and new rows continue after the highest id', async (t) => {
  const server = await postgresOrSkip(t);
  if (!server) return;
  const dir = tempDir(t);
  const file = installation(dir);
  const database = await createTestDatabase(server);
  t.teardown(() => database.drop());
  const rb = cli(dir);

  const copied = await rb('--json', 'db', 'copy', '--from', `sqlite:${file}`, '--to', database.url);
  t.equal(copied.code, 0, copied.stderr);
  const report = JSON.parse(copied.stdout) as { tables: { table: string; rows: number }[]; to: string };
  const rows = Object.fromEntries(report.tables.map((c) => [c.table, c.rows]));
  t.match(rows, { accounts: 2, api_keys: 1, numbers: 1, calls: 1, call_timeline: 1200, acd_queues: 0 }, 'row counts per table');
  t.ok(report.tables.findIndex((c) => c.table === 'accounts') < report.tables.findIndex((c) => c.table === 'api_keys'), 'parents before children');

  const pg = new PostgresDb({ url: database.url, poolSize: 1 });
  t.teardown(() => pg.close());
  t.same(await pg.all('SELECT id, name FROM accounts ORDER BY id'), [{ id: 1, name: 'Acme' }, { id: 3, name: 'Beta' }], 'ids kept, gap included');
  t.same(await pg.one("SELECT detail FROM call_timeline WHERE detail = ?", ['{"n":1199}']), { detail: '{"n":1199}' }, 'the last batch arrived');
  const next = await pg.one<{ id: number }>("INSERT INTO accounts (name, trunk_capacity, created_at) VALUES ('New', 1, ?) RETURNING id", [NOW]);
  t.equal(next?.id, 4, 'the next account id follows the highest copied one');
});

t.test('db copy into a database that already holds data is refused and writes nothing', async (t) => {
  const server = await postgresOrSkip(t);
  if (!server) return;
  const dir = tempDir(t);
  const file = installation(dir);
  const database = await createTestDatabase(server);
  t.teardown(() => database.drop());
  const rb = cli(dir);
  t.equal((await rb('db', 'copy', '--from', `sqlite:${file}`, '--to', database.url)).code, 0);
  const again = await rb('db', 'copy', '--from', `sqlite:${file}`, '--to', database.url);
  t.equal(again.code, 1);
  t.match(again.stderr, /already holds data \(accounts: 2 rows\)/);
  const pg = new PostgresDb({ url: database.url, poolSize: 1 });
  t.teardown(() => pg.close());
  t.same(await pg.one('SELECT COUNT(*) AS n FROM call_timeline'), { n: 1200 }, 'nothing added');
});

t.test('db migrate on PostgreSQL and on SQLite; a URL that is not PostgreSQL is a configuration error', async (t) => {
  const server = await postgresOrSkip(t);
  if (!server) return;
  const dir = tempDir(t);
  const database = await createTestDatabase(server);
  t.teardown(() => database.drop());
  const onPg = await cli(dir, { RINGBASE_DATABASE_URL: database.url })('--json', 'db', 'migrate');
  t.equal(onPg.code, 0, onPg.stderr);
  const said = JSON.parse(onPg.stdout) as { database: string; schema_version: number };
  t.ok(said.schema_version > 10);
  t.notMatch(said.database, /sqlite/);
  const onSqlite = JSON.parse((await cli(dir)('--json', 'db', 'migrate')).stdout) as { database: string };
  t.equal(onSqlite.database, `sqlite:${path.join(dir, 'ringbase.db')}`);
  const wrong = await cli(dir, { RINGBASE_DATABASE_URL: 'mysql://root:s3cret@127.0.0.1/x' })('db', 'migrate');
  t.equal(wrong.code, 78);
  t.match(wrong.stderr, /RINGBASE_DATABASE_URL must be a postgres:\/\/ or postgresql:\/\/ URL, got a mysql: URL/);
  t.notMatch(wrong.stderr, /s3cret/, 'the URL (and its password) is not repeated');
  const withPassword = await cli(dir, { RINGBASE_DATABASE_URL: database.url.replace('postgres@', 'postgres:hunter2@') })('--json', 'db', 'migrate');
  t.notMatch(withPassword.stdout + withPassword.stderr, /hunter2/, 'a password in the URL is never printed');
});

t.test('db rebuild-rollups counts the calls per day again from the calls', async (t) => {
  const dir = tempDir(t);
  installation(dir);
  const rebuilt = await cli(dir)('--json', 'db', 'rebuild-rollups');
  t.equal(rebuilt.code, 0, rebuilt.stderr);
  t.match(JSON.parse(rebuilt.stdout), { database: `sqlite:${path.join(dir, 'ringbase.db')}`, call_days: 1 }, 'the one call written around the repository, counted');
  const db = openDb(path.join(dir, 'ringbase.db'));
  t.same(db.prepare('SELECT account_id, day, calls, answered FROM call_days').all(), [{ account_id: 1, day: '2026-11-26', calls: 1, answered: 0 }]);
  db.close();
  const human = await cli(dir)('db', 'rebuild-rollups');
  t.match(human.stdout, /calls per day counted again \(1 account-days\)/);
});
