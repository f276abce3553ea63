// Queues and agents in the dashboard without a browser: forms that create queues and agents (with their errors in
// words), an agent's console (status buttons, the softphone only on a wss seat, its credentials only by a
// CSRF-checked POST), and a wrap-up disposition set from the console ending the wrap-up; another account's agent is 404.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import t from 'tap';
import { ROOT } from '../helpers/spawn.js';
import { startHarness } from '../helpers/harness.js';
import { accountWithUser, DashboardClient, PASSWORD } from './client.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../src/acd/queues.js';

async function setup(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'lead@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('lead@example.com', PASSWORD);
  const trunk = (transport: string) => h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport } }).then((r) => r.body as { id: number });
  return { h, a, c, trunk };
}

t.test('queues and agents: created from forms, errors in words, the console per seat type', async (t) => {
  const { h, a, c, trunk } = await setup(t);
  const wss = await trunk('wss');
  const udp = await trunk('udp');
  t.match((await c.submit('/dashboard/queues', '/dashboard/queues', { friendly_name: ' ' })).text, /Enter a name of 1 to 64 characters/);
  t.equal((await c.submit('/dashboard/queues', '/dashboard/queues', { friendly_name: 'support' })).location, '/dashboard/queues?done=queue-created');
  t.equal((await c.submit('/dashboard/queues', '/dashboard/queues', { friendly_name: 'support' })).status, 409, 'names are unique');
  const queueSid = (await h.store.queues.find(a.id, 'support'))!.sid;
  const bad = await c.submit('/dashboard/queues', '/dashboard/agents', { friendly_name: 'Sam', trunk_id: '999999', queue: queueSid });
  t.equal(bad.status, 422);
  t.match(bad.text, /Choose a seat/);
  const made = await c.submit('/dashboard/queues', '/dashboard/agents', { friendly_name: 'Sam', trunk_id: String(wss.id), queue: queueSid });
  const agentPath = made.location!.replace(/\?.*/, '');
  t.match(agentPath, /^\/dashboard\/agents\/AG[0-9a-f]{32}$/);
  const console = await c.get(agentPath);
  t.match(console.text, /id="softphone"/, 'a wss seat gets the softphone');
  const csp = console.headers.get('content-security-policy') ?? '';
  t.match(csp, "script-src 'self';", 'scripts from this site only: JsSIP is served here, not from a CDN');
  t.match(csp, "connect-src 'self' wss://sip.test.example:8443;", "connections here and to the seat's wss origin only");
  t.notMatch(csp, /https:|wss:(?!\/\/sip\.test\.example:8443)/, 'no other origin, no scheme wildcard');
  t.notMatch(console.text, /password/i, 'no credential in the page');
  t.equal((await c.post(`${agentPath}/seat`, {})).status, 403, 'the credentials need the form token');
  const creds = await c.submit(agentPath, `${agentPath}/seat`);
  t.match(JSON.parse(creds.text), { username: /^tk-/, password: /\S{16,}/ });

  const phoneOnly = await c.submit('/dashboard/queues', '/dashboard/agents', { friendly_name: 'Desk phone', trunk_id: String(udp.id), queue: '' });
  t.notMatch((await c.get(phoneOnly.location!.replace(/\?.*/, ''))).text, /id="softphone"/, 'a SIP trunk seat rings its phone');
  t.match((await c.get('/dashboard/queues/live')).text, /Sam[\s\S]*Desk phone|Desk phone[\s\S]*Sam/);

  t.equal((await c.submit(agentPath, `${agentPath}/status`, { status: 'available' })).location, `${agentPath}?done=agent-status`);
  t.match(await h.store.agents.getForAccount(a.id, agentPath.split('/').pop()!), { status: 'available' });
  const other = await accountWithUser(h, 'other@example.com');
  const o = new DashboardClient(h.url);
  await o.signIn('other@example.com', PASSWORD);
  t.equal((await o.get(agentPath)).status, 404, "another account's agent does not exist for it");
  t.ok(other.id !== a.id);
});

t.test('JsSIP is served by the platform: one ES module, any origin may import it, with its licences', async (t) => {
  const h = await startHarness(t);
  const softphone = await fetch(`${h.url}/dashboard/assets/softphone.js`).then((r) => r.text());
  t.match(softphone, "import JsSIP from './jssip.js';", 'the softphone imports it from beside itself');
  const res = await fetch(`${h.url}/dashboard/assets/jssip.js`, { headers: { origin: 'https://agents.example.com' } });
  t.equal(res.status, 200);
  t.match(res.headers.get('content-type'), /^text\/javascript/);
  t.equal(res.headers.get('access-control-allow-origin'), '*', "customers' own agent pages import it across origins");
  const js = await res.text();
  const installed = JSON.parse(readFileSync(join(ROOT, 'node_modules', 'jssip', 'package.json'), 'utf8')).version as string;
  t.match(js, `/*! jssip@${installed}\n`, 'built from the installed package, its licence at the top');
  t.match(js, /Permission is hereby granted/, 'the MIT licence text');
  t.match(js, /export default [\w$]+\(\);\s*$/, 'an ES module whose default export is JsSIP');
  t.notMatch(js, /https:\/\/cdn\./, 'nothing more to fetch');
});

t.test('a disposition from the console ends the wrap-up and is stored with the agent', async (t) => {
  const { h, a, c, trunk } = await setup(t);
  const seat = await trunk('udp');
  const queue = await h.store.queues.create(a.id, 'QU1', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'support', wrapUpSeconds: 600 });
  const agent = await h.store.agents.create(a.id, `AG${'1'.repeat(32)}`, { friendlyName: 'Sam', trunkId: seat.id, queueIds: [queue.id], status: 'available', breakReason: null });
  const callSid = `CA${'2'.repeat(32)}`;
  await h.store.calls.create({ sid: callSid, accountId: a.id, direction: 'inbound', from: '+15557770001', to: '+15550001000', status: 'completed' });
  await h.store.sql.run("UPDATE acd_agents SET activity = 'wrap-up', current_call_sid = ?, wrap_up_ends_at = ? WHERE id = ?", [callSid, Date.now() + 600_000, agent.id]);
  const path = `/dashboard/agents/${agent.sid}`;
  const page = await c.get(path);
  t.match(page.text, /id="disposition-form"/);
  t.match(page.text, /\+15557770001/, 'the screen pop names the caller');
  const refused = await c.submit(path, `${path}/disposition`, { call_sid: callSid, disposition: '' });
  t.equal(refused.status, 422);
  t.match(refused.text, /Enter the outcome/);
  const saved = await c.submit(path, `${path}/disposition`, { call_sid: callSid, disposition: 'sale', notes: 'two seats' });
  t.equal(saved.location, `${path}?done=disposition-saved`);
  t.match(await h.store.agents.getForAccount(a.id, agent.sid), { activity: 'idle', currentCallSid: null });
  t.match(await h.store.dispositions.forCall(a.id, callSid), [{ disposition: 'sale', notes: 'two seats', agentSid: agent.sid }]);
});

t.test("trunk access switched off: no seat passwords, no agents on trunks (403, as the trunk pages and API)", async (t) => {
  const { h, a, c, trunk } = await setup(t);
  const wss = await trunk('wss');
  const made = await c.submit('/dashboard/queues', '/dashboard/agents', { friendly_name: 'Sam', trunk_id: String(wss.id), queue: '' });
  const agentPath = made.location!.replace(/\?.*/, '');
  await h.store.accounts.update(a.id, { trunking: false });
  const creds = await c.submit(agentPath, `${agentPath}/seat`);
  t.equal(creds.status, 403);
  t.notMatch(creds.text, /password/i, 'no credential');
  t.match(JSON.parse(creds.text), { error: /Trunk access is not enabled/ });
  const another = await c.submit('/dashboard/queues', '/dashboard/agents', { friendly_name: 'Alex', trunk_id: String(wss.id), queue: '' });
  t.equal(another.status, 403);
  t.match(another.text, /Trunk access is not enabled/);
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM acd_agents'))!.n, 1, 'no agent created');
});
