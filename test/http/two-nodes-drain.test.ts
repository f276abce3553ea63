// A node's drain, asked with `ringbase node drain` (docs/cluster.md, "Draining a node"): the node sees the request at
// its next heartbeat, `ringbase cluster status` says it drains, its /healthz answers 503 draining, a call placed
// through it is placed by the other node, a simulated call offered to its engine is refused, and its call in
// progress goes on and is still controlled through either node. With no other node to take it, a new call is 503
// node_draining. Two whole control planes (sandbox engines) on one PostgreSQL database.
import t from 'tap';
import { twoNodesWithNumber } from '../helpers/two-nodes.js';
import { until } from '../helpers/waits.js';
import { cli } from '../helpers/spawn.js';
import { databaseEnv } from '../helpers/backends.js';

const DID = '+15550001000';
const PARTY = '+15550004444';
const HOLD = '<Response><Say loop="0">Please hold.</Say></Response>';
/** A heartbeat (2 s) and the request's own time, with room for a loaded machine. */
const NOTICED_MS = 10_000;

t.test('draining a node: new calls go to the other, its own call goes on', async (t) => {
  const cluster = await twoNodesWithNumber(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } }, DID);
  if (!cluster) return;
  const { a, b, account, key } = cluster;
  const rb = cli(a.dataDir, databaseEnv(a.config.database));
  const place = (via: typeof a) => via.request('POST', '/api/calls', { key, body: { from: DID, to: PARTY, markup: HOLD } });

  const held = await place(a);
  t.equal(held.status, 201, 'a call placed through A before the drain');
  const heldSid = held.body.sid as string;
  await until('the call answered on A', 10_000, async () => (await a.store.calls.get(heldSid))?.status === 'in-progress');

  const asked = await rb('--json', 'node', 'drain', a.store.instanceId);
  t.equal(asked.code, 0, asked.stderr);
  t.same(JSON.parse(asked.stdout), { id: a.store.instanceId, draining: true }, 'ringbase node drain asks A to drain');
  t.match(await rb('node', 'drain', 'nosuchnode'), { code: 1, stderr: /no node nosuchnode/ }, 'an unknown node is refused');
  await until('A drains', NOTICED_MS, async () => (await a.request('GET', '/healthz', { key: null })).status === 503);
  t.match((await a.request('GET', '/healthz', { key: null })).body, { status: 'draining', node: a.store.instanceId }, "A's /healthz: 503 draining");
  t.match((await b.request('GET', '/healthz', { key: null })), { status: 200, body: { status: 'ok' } }, "B's: ok");
  const status = (JSON.parse((await rb('--json', 'cluster', 'status')).stdout) as { nodes: Array<{ id: string; state: string; open_calls: number }> }).nodes;
  t.match(status.find((n) => n.id === a.store.instanceId), { state: 'draining', open_calls: 1 }, 'cluster status: A draining, with its call');

  const sent = await place(a);
  t.equal(sent.status, 201, 'a call placed through A while it drains is accepted');
  await until('the new call answered', 10_000, async () => (await a.store.calls.get(sent.body.sid))?.status === 'in-progress');
  t.equal((await a.store.calls.get(sent.body.sid))?.owner, b.store.instanceId, 'and carried by B');
  const before = (await a.store.sql.all('SELECT sid FROM calls')).length;
  const refused = await a.engine.simulateInbound({ from: '+15557770001', to: DID }).ended;
  t.match(refused, { cause: 'failed', sipStatus: 503 }, "a new SIP call offered to A's engine is refused (503)");
  t.equal((await a.store.sql.all('SELECT sid FROM calls')).length, before, 'and never reaches the platform');

  t.equal((await a.store.calls.get(heldSid))?.status, 'in-progress', "A's call goes on");
  t.match(await b.request('POST', `/api/calls/${heldSid}`, { key, body: { status: 'completed' } }), { status: 200, body: { status: 'completed' } },
    "and is hung up through B (forwarded to A, which still listens)");

  await b.app.drain();
  t.match(await b.request('POST', '/api/calls', { key, body: { from: DID, to: PARTY, markup: HOLD } }), { status: 503, body: { code: 'node_draining' } },
    'with every node draining, a new call is 503 node_draining');
  t.match(await a.request('POST', '/api/calls', { key, body: { from: DID, to: PARTY, markup: HOLD } }), { status: 503, body: { code: 'node_draining' } },
    'through A as well');
  await b.request('POST', `/api/calls/${sent.body.sid}`, { key, body: { status: 'completed' } });
});
