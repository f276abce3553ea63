// The README's path for a newcomer, end to end: start the server, create an account and key with the CLI,
// create a wss trunk over HTTP, fetch its connection with ICE servers, then stop the server with SIGTERM.
import t from 'tap';
import { cli } from './helpers/spawn.js';
import { tempDir } from './helpers/harness.js';
import { startServerProcess } from './helpers/server-process.js';
import { until } from './helpers/waits.js';

t.test('start, account, key, wss trunk, connection, graceful stop', async (t) => {
  const dataDir = tempDir(t);
  const server = await startServerProcess({ RINGBASE_DATA_DIR: dataDir, RINGBASE_TURN_SECRET: 'newcomer-turn-secret' }, t);
  const rb = cli(dataDir);
  const account = JSON.parse((await rb('--json', 'account', 'create', '--name', 'Newcomer', '--trunking')).stdout);
  const { key } = JSON.parse((await rb('--json', 'key', 'create', '--account', String(account.id))).stdout);
  const headers = { authorization: `Bearer ${key}`, accept: 'application/json', 'content-type': 'application/json' };

  const created = await fetch(`${server.url}/api/partner/trunks`, { method: 'POST', headers, body: JSON.stringify({ transport: 'wss', label: 'Agent seat' }) });
  t.equal(created.status, 201);
  const trunk = await created.json() as { id: number; status: string; connection: { wss_url: string } };
  t.equal(trunk.status, 'pending');
  t.match(trunk.connection.wss_url, /^wss:\/\//);

  const conn = await fetch(`${server.url}/api/partner/trunks/${trunk.id}/connection`, { headers });
  t.equal(conn.status, 200);
  const body = await conn.json() as { ice_servers: Array<{ urls: string[]; username: string; credential: string }> };
  t.equal(body.ice_servers[0]!.urls.length, 4, 'STUN plus three TURN URLs');
  t.ok(body.ice_servers[0]!.credential);

  const fetched = await (await fetch(`${server.url}/api/partner/trunks/${trunk.id}`, { headers })).json() as { status: string };
  t.equal(fetched.status, 'active', 'provisioned by the sandbox engine');

  server.child.kill('SIGTERM');
  t.equal(await server.exited, 0, 'SIGTERM drains and exits cleanly');
  t.match(server.output(), /shutting down/);
  t.notOk(server.output().includes(key), 'the API key never reaches the log');
});

t.test('the server refuses to start with a malformed master key', async (t) => {
  const dataDir = tempDir(t);
  await t.rejects(startServerProcess({ RINGBASE_DATA_DIR: dataDir, RINGBASE_MASTER_KEY: 'not-a-key' }, t),
    /exited with 78: ringbase: configuration error: RINGBASE_MASTER_KEY must hold a 32-byte key/);
});

t.test('the server says where it is, and / leads to the dashboard', async (t) => {
  const server = await startServerProcess({ RINGBASE_DATA_DIR: tempDir(t) }, t);
  // The listener logs before the line for people is written: wait for it rather than race it.
  await until('the ready line', 5_000, () => server.output().includes('Ringbase ready:'));
  const ready = server.output().split('\n').find((l) => l.startsWith('Ringbase ready:'));
  t.match(ready, new RegExp(`^Ringbase ready: dashboard ${server.url}/dashboard · API ${server.url}/api · preview API /v1 needs HTTPS .*· SIP: none \\(sandbox engine`));
  const root = await fetch(`${server.url}/`, { redirect: 'manual' });
  t.equal(root.status, 302);
  t.equal(root.headers.get('location'), '/dashboard');
  server.child.kill('SIGTERM');
  await server.exited;
});

t.test('log lines read as words at a terminal', async (t) => {
  const { formatLogLine } = await import('../src/log-pretty.js');
  const line = formatLogLine(JSON.stringify({ level: 40, time: Date.UTC(2026, 0, 1, 12, 3, 4), pid: 1, hostname: 'h', component: 'calls', msg: 'media not played', url: 'https://x/a b.wav' }));
  t.match(line, /^\d\d:\d\d:\d\d WARN  calls  media not played  url="https:\/\/x\/a b.wav"$/);
  t.equal(formatLogLine('not json'), 'not json', 'anything else passes through');
});
