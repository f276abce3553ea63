// The operator's cluster page (docs/cluster.md, "Operating a cluster"): signed in with the operator token, not an
// account user's session; lists the nodes sharing the database; drains one. And the same on the API
// (GET /operator/cluster, POST /operator/cluster/nodes/{id}/drain) with the operator token as a bearer.
import t from 'tap';
import { createHmac } from 'node:crypto';
import { hostname } from 'node:os';
import { startHarness, type Harness } from '../helpers/harness.js';
import { operatorToken } from '../../src/operator-token.js';
import { cli } from '../helpers/spawn.js';
import { databaseEnv } from '../helpers/backends.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';

const PEER = 'node-b';
const GONE = 'node-gone';

/**
 * Makes `id` a node silent for a minute that this harness's node has claimed (it is finishing its calls): it stays
 * listed so, where one claimed by nobody would be finished and removed by the harness's sweep at any moment.
 */
async function reconciledLongAgo(h: Harness, id: string): Promise<void> {
  await h.store.sql.run('UPDATE instances SET beat_at = ?, reconciled_by = ? WHERE id = ?', [new Date(Date.now() - 60_000).toISOString(), h.store.instanceId, id]);
}

t.test('operator pages: sign-in with the token, the nodes, drain; refused without the operator session', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_AUTH_FAIL_LIMIT: '3' } });
  const token = operatorToken(h.dataDir, false)!;
  // A live peer (this host, this test's own process: alive however long the test takes, as long as it beats) and a
  // dead node.
  await h.store.instances.register(PEER, hostname(), process.pid);
  await h.store.instances.advertise(PEER, 'http://127.0.0.1:9');
  await h.store.instances.register(GONE, 'gone.example', 4242);
  await reconciledLongAgo(h, GONE);
  await h.store.calls.create({ sid: 'CA00000000000000000000000000000001', accountId: (await h.account()).id, direction: 'inbound', from: '+15557770001', to: '+15557770002', status: 'ringing' });

  const op = new DashboardClient(h.url);
  t.equal((await op.get('/dashboard/operator/cluster')).location, '/dashboard/operator', 'signed out: the cluster page sends to the sign-in');
  const signIn = await op.get('/dashboard/operator');
  t.equal(signIn.status, 200);
  t.match(signIn.text, /name="token"[^>]*type="password"|type="password"[^>]*name="token"/, 'a password field for the token');

  const wrong = await op.submit('/dashboard/operator', '/dashboard/operator/sign-in', { token: 'op_wrong' });
  t.equal(wrong.status, 401);
  t.match(wrong.text, /The operator token is incorrect\./);
  t.notOk(op.cookies.has('rb_operator'), 'no operator session');

  const ok = await op.submit('/dashboard/operator', '/dashboard/operator/sign-in', { token });
  t.equal(ok.status, 303);
  t.equal(ok.location, '/dashboard/operator/cluster');
  const cookie = ok.setCookies.find((c) => c.startsWith('rb_operator='))!;
  t.match(cookie, /Path=\/dashboard\/operator/, 'sent to the operator pages only');
  t.match(cookie, /HttpOnly/);
  t.match(cookie, /SameSite=Strict/);

  await h.store.instances.beat(PEER);
  const cluster = await op.get('/dashboard/operator/cluster');
  t.equal(cluster.status, 200);
  const row = (id: string) => new RegExp(`<tr data-node="${id}">([\\s\\S]*?)</tr>`).exec(cluster.text)?.[1] ?? '';
  t.match(row(h.store.instanceId), /\(this node\)[\s\S]*Alive[\s\S]*<td>1<\/td>/, 'this node: alive, carrying the open call');
  t.match(cluster.text, new RegExp(`answered by <code>${h.store.instanceId}</code>`), 'says which node answered');
  t.match(row(PEER), /Alive[\s\S]*http:\/\/127\.0\.0\.1:9/, 'the peer: alive, its address');
  t.match(row(GONE), /Dead/, 'the silent node: dead');
  t.notMatch(row(GONE), /Drain/, 'no drain button for a dead node');

  // Drain the peer with the page's form.
  await h.store.instances.beat(PEER);
  const drained = await op.submit('/dashboard/operator/cluster', `/dashboard/operator/cluster/nodes/${PEER}/drain`);
  t.equal(drained.status, 303);
  t.equal(drained.location, '/dashboard/operator/cluster?done=node-draining');
  t.ok((await h.store.instances.get(PEER))?.drainingAt, 'the peer is asked to drain');
  await h.store.instances.beat(PEER);
  const after = await op.get('/dashboard/operator/cluster?done=node-draining');
  t.match(after.text, /Node asked to drain/);
  t.match(after.text, new RegExp(`<tr data-node="${PEER}">[\\s\\S]*?Draining`), 'shown draining');
  const dead = await op.submit('/dashboard/operator/cluster', `/dashboard/operator/cluster/nodes/${GONE}/drain`);
  t.equal(dead.status, 409, 'a dead node cannot be drained');
  t.match(dead.text, /is dead/);
  t.equal((await op.submit('/dashboard/operator/cluster', '/dashboard/operator/cluster/nodes/no-such-node/drain')).status, 404);

  // Forms need the operator session's own CSRF token.
  t.equal((await op.post(`/dashboard/operator/cluster/nodes/${PEER}/drain`, { _csrf: 'forged' })).status, 403, 'a forged form is refused');

  // A cookie not signed with the token, or expired, is no session.
  const forged = new DashboardClient(h.url);
  forged.cookies.set('rb_operator', `${Date.now() + 3_600_000}.abc.${'x'.repeat(43)}`);
  t.equal((await forged.get('/dashboard/operator/cluster')).status, 303, 'a forged cookie is refused');
  const expired = new DashboardClient(h.url);
  const past = String(Date.now() - 1000);
  expired.cookies.set('rb_operator', `${past}.abc.${createHmac('sha256', token).update(`session ${past} abc`).digest('base64url')}`);
  t.equal((await expired.get('/dashboard/operator/cluster')).status, 303, 'an expired session is refused');

  // An account holder's session is not the operator's.
  await accountWithUser(h, 'owner@example.com');
  const user = new DashboardClient(h.url);
  await user.signIn('owner@example.com', PASSWORD);
  t.equal((await user.get('/dashboard/operator/cluster')).location, '/dashboard/operator', 'an account user is sent to the operator sign-in');

  const out = await op.submit('/dashboard/operator/cluster', '/dashboard/operator/sign-out');
  t.equal(out.location, '/dashboard/operator?done=operator-signed-out');
  t.notOk(op.cookies.has('rb_operator'), 'signed out: the cookie is cleared');
  t.equal((await op.get('/dashboard/operator/cluster')).status, 303);

  // Wrong tokens count against the address, as on the API (limit 3 here): then 429 with Retry-After.
  const guesser = new DashboardClient(h.url);
  let last = await guesser.submit('/dashboard/operator', '/dashboard/operator/sign-in', { token: 'op_guess' });
  for (let i = 0; i < 3 && last.status !== 429; i++) last = await guesser.submit('/dashboard/operator', '/dashboard/operator/sign-in', { token: 'op_guess' });
  t.equal(last.status, 429, 'guessing is throttled');
  t.match(last.text, /Too many failed attempts from your address/);
  t.ok(Number(last.headers.get('retry-after')) > 0, 'with Retry-After');
});

t.test('operator API: the cluster and drain with the operator token', async (t) => {
  const h = await startHarness(t);
  const token = operatorToken(h.dataDir, false)!;
  await h.store.instances.register(PEER, hostname(), process.pid);
  const call = (method: string, path: string, auth: string | null = token) => h.request(method, path, { key: null, headers: auth ? { authorization: `Bearer ${auth}` } : {} });
  t.equal((await call('GET', '/operator/cluster', null)).status, 401, 'no token: refused');
  const status = await call('GET', '/operator/cluster');
  t.equal(status.status, 200);
  const body = status.body as { node: string; nodes: Array<{ id: string; state: string; open_calls: number; beat_age_seconds: number }> };
  t.equal(body.node, h.store.instanceId, 'says which node answered');
  t.same(body.nodes.map((n) => n.id).sort(), [h.store.instanceId, PEER].sort());
  t.ok(body.nodes.every((n) => n.state === 'alive' && typeof n.beat_age_seconds === 'number'));
  await h.store.instances.beat(PEER);
  const drain = await call('POST', `/operator/cluster/nodes/${PEER}/drain`);
  t.equal(drain.status, 202);
  t.same(drain.body, { id: PEER, draining: true });
  const missing = await call('POST', '/operator/cluster/nodes/no-such-node/drain');
  t.equal(missing.status, 404);
  t.match(missing.body, { error: /^No node no-such-node is on this database/ });
  await h.store.instances.register(GONE, 'gone.example', 4242);
  await reconciledLongAgo(h, GONE);
  const dead = await call('POST', `/operator/cluster/nodes/${GONE}/drain`);
  t.equal(dead.status, 409);
  t.match(dead.body, { error: /is dead/ });
});

t.test('operator carriers page: every carrier\'s settings, never its password; only with the operator session', async (t) => {
  const h = await startHarness(t);
  const token = operatorToken(h.dataDir, false)!;
  const rb = cli(h.dataDir, databaseEnv(h.config.database));
  const added = await rb('carrier', 'add', '--name', 'acme', '--source', '203.0.113.0/24', '--gateway', 'sip1.acme.example;transport=tls;priority=1',
    '--prefix', '+44', '--username', 'acct-7', '--password', 'never-shown-9', '--register', '--number-format', 'national', '--country-code', '44',
    '--dtmf', 'info', '--srtp', 'required', '--options-ping', '30');
  t.equal(added.code, 0, added.stderr);
  const op = new DashboardClient(h.url);
  t.equal((await op.get('/dashboard/operator/carriers')).location, '/dashboard/operator', 'signed out: sent to the sign-in');
  await op.submit('/dashboard/operator', '/dashboard/operator/sign-in', { token });
  const page = await op.get('/dashboard/operator/carriers');
  t.equal(page.status, 200);
  const row = /<tr data-carrier="acme">([\s\S]*?)<\/tr>/.exec(page.text)?.[1] ?? '';
  for (const shown of ['203.0.113.0/24', 'sip1.acme.example', 'tls, priority 1', '+44', 'acct-7', 'password set', 'not started on this node', 'national (+44)', 'keys info', 'SRTP required', 'OPTIONS every 30 s']) {
    t.match(row, shown, `shows ${shown}`);
  }
  t.match(row, /not pinged/, 'the sandbox engine pings nothing');
  t.notMatch(page.text, 'never-shown-9', 'the password is never on the page');
  t.match(page.text, /href="\/dashboard\/operator\/cluster"/, 'links to the cluster page');
  t.match((await op.get('/dashboard/operator/cluster')).text, /href="\/dashboard\/operator\/carriers"/, 'and back');
});
