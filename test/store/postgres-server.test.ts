// The throwaway PostgreSQL server the PostgreSQL half of the tests runs on (test/helpers/postgres.ts): a real
// server answering through `pg`, one database per test file with nothing shared, and nothing left once stopped.
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readlinkSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import pg from 'pg';
import t, { type Test } from 'tap';
import { spawn, type ChildProcess } from 'node:child_process';
import { pathToFileURL } from 'node:url';
import { cleanEnv, ROOT } from '../helpers/spawn.js';
import { bounded, until } from '../helpers/waits.js';
import { createTestDatabase, findPostgresBinaries, postgresOrSkip, removeServerLeftovers, startPostgresServer } from '../helpers/postgres.js';

async function query<R extends pg.QueryResultRow>(url: string, sql: string, params: unknown[] = []): Promise<R[]> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try { return (await client.query<R>(sql, params)).rows; } finally { await client.end(); }
}

/**
 * Pids of live processes working in `dir`: every PostgreSQL process runs in its data dir, whatever title it
 * gives itself, and keeps that cwd even once the dir is deleted or its postmaster is gone.
 */
function processesIn(dir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readlinkSync(`/proc/${entry}/cwd`).startsWith(dir + path.sep)) pids.push(Number(entry));
    } catch { /* gone, or not ours to read */ }
  }
  return pids;
}

t.test('PG_BIN is preferred, and a dir without the tools is passed over', async (t) => {
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-pgbin-'));
  t.teardown(() => rmSync(dir, { recursive: true, force: true }));
  const complete = path.join(dir, 'complete');
  const partial = path.join(dir, 'partial');
  for (const [bin, tools] of [[complete, ['initdb', 'pg_ctl', 'postgres']], [partial, ['initdb']]] as const) {
    mkdirSync(bin);
    for (const tool of tools) { writeFileSync(path.join(bin, tool), '#!/bin/sh\n'); chmodSync(path.join(bin, tool), 0o755); }
  }
  t.equal(findPostgresBinaries({ PG_BIN: complete, PATH: '' }), complete);
  t.ok(findPostgresBinaries({ PG_BIN: '/nonexistent', PATH: complete }), 'an unusable PG_BIN falls back to Debian\'s dir, then PATH');
  t.not(findPostgresBinaries({ PG_BIN: partial, PATH: complete }), partial, 'a dir missing pg_ctl and postgres is not chosen');
});

const serverUrl = await postgresOrSkip(t);

if (serverUrl) {
  t.test('the server is PostgreSQL 15 or later, reachable through pg, with no TCP listener', async (t) => {
    const [row] = await query<{ version: string; num: string; listen: string }>(serverUrl,
      `SELECT version(), current_setting('server_version_num') AS num, current_setting('listen_addresses') AS listen`);
    t.match(row!.version, /^PostgreSQL /);
    t.ok(Number(row!.num) >= 150000, `server_version_num ${row!.num} is 15 or later`);
    t.equal(row!.listen, '', 'unix socket only');
  });

  t.test('test databases are isolated from each other, and drop removes one even while it is in use', async (t) => {
    const [a, b] = await Promise.all([createTestDatabase(serverUrl), createTestDatabase(serverUrl)]);
    t.teardown(() => Promise.all([a.drop(), b.drop()]));
    t.not(a.name, b.name);
    await query(a.url, 'CREATE TABLE only_in_a (n integer)');
    await query(a.url, 'INSERT INTO only_in_a VALUES (1)');
    t.same(await query(a.url, 'SELECT current_database() AS db, (SELECT count(*)::int FROM only_in_a) AS n'), [{ db: a.name, n: 1 }]);
    t.same(await query(b.url, `SELECT current_database() AS db, to_regclass('only_in_a') AS tbl`), [{ db: b.name, tbl: null }]);

    // A session still open on the database (a test that failed before closing its pool) does not stop the drop.
    const open = new pg.Client({ connectionString: a.url });
    const closed = new Promise<Error>((resolve) => open.on('error', resolve));
    await open.connect();
    await a.drop();
    t.match((await closed).message, /terminat/i, 'the open session was ended by the drop');
    t.same(await query(serverUrl, 'SELECT datname FROM pg_database WHERE datname = $1', [a.name]), []);
    await t.rejects(query(a.url, 'SELECT 1'), { code: '3D000' }, 'the dropped database no longer exists');
    t.same(await query(b.url, 'SELECT 1 AS one'), [{ one: 1 }], 'the other database is untouched');
  });

  t.test('a started server runs in its own private dir; stopping it leaves no process and no dir', async (t) => {
    const started = performance.now();
    const server = await startPostgresServer();
    const ms = Math.round(performance.now() - started);
    t.teardown(server.stop);
    t.comment(`initdb + start until ready: ${ms} ms`);
    t.equal(statSync(server.socketDir).mode & 0o077, 0, 'the socket dir is reachable by its owner only');
    t.same(await query(server.url, 'SELECT 1 AS one'), [{ one: 1 }]);
    t.ok(processesIn(server.socketDir).length > 1, 'the postmaster and its background processes are found');

    await server.stop();
    t.same(processesIn(server.socketDir), [], 'no process of the server is left');
    t.throws(() => process.kill(server.pid, 0), { code: 'ESRCH' });
    t.notOk(existsSync(server.socketDir), 'its dir is removed');
  });

  /** A process that starts a server and then `ends` (exits, or waits to be killed); resolves with the server's dir. */
  async function serverInChildProcess(t: Test, ends: 'exit' | 'wait'): Promise<{ dir: string; child: ChildProcess; exited: Promise<void> }> {
    const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-pgchild-'));
    t.teardown(() => rmSync(scratch, { recursive: true, force: true }));
    const script = path.join(scratch, 'start.mts');
    writeFileSync(script, [
      `import { startPostgresServer } from ${JSON.stringify(pathToFileURL(path.join(ROOT, 'test/helpers/postgres.ts')).href)};`,
      'const server = await startPostgresServer();',
      'process.stdout.write(JSON.stringify({ dir: server.socketDir }) + "\\n");',
      ends === 'exit' ? 'process.exit(0);' : 'setInterval(() => {}, 60_000);',
    ].join('\n'));
    const child = spawn(process.execPath, ['--import', 'tsx', script], { cwd: ROOT, env: cleanEnv(), stdio: ['ignore', 'pipe', 'pipe'] });
    t.teardown(() => { if (child.exitCode === null) child.kill('SIGKILL'); });
    const exited = new Promise<void>((r) => child.once('exit', () => r()));
    let out = '';
    child.stderr!.on('data', (d) => { out += d; });
    const dir = await bounded('the child\'s server', 60_000, new Promise<string>((resolve, reject) => {
      child.stdout!.on('data', (d) => {
        out += d;
        const line = out.split('\n').find((l) => l.startsWith('{'));
        if (line) resolve((JSON.parse(line) as { dir: string }).dir);
      });
      void exited.then(() => reject(new Error(`the child exited first: ${out}`)));
    }));
    t.teardown(() => removeServerLeftovers(dir));
    return { dir, child, exited };
  }

  t.test('a server cannot outlive the process that started it', async (t) => {
    t.test('the process exits without stopping it: server and dir are gone', async (t) => {
      const { dir, exited } = await serverInChildProcess(t, 'exit');
      await exited;
      await until('the server\'s processes to end', 10_000, () => processesIn(dir).length === 0);
      t.notOk(existsSync(dir), 'its dir is removed');
    });
    for (const signal of ['SIGTERM', 'SIGKILL'] as const) {
      t.test(`the process is killed with ${signal} (tap's timeout): the server is gone`, async (t) => {
        const { dir, child, exited } = await serverInChildProcess(t, 'wait');
        t.ok(processesIn(dir).length > 1, 'the server is running');
        child.kill(signal);
        await exited;
        await until('the server\'s processes to end', 10_000, () => processesIn(dir).length === 0);
        t.pass('no process of the server is left');
      });
    }
  });
}
