// Two control planes on one PostgreSQL database (two apps, each with its own sandbox engine and HTTP server, one
// master key): a command for a call the other node carries is forwarded there and answered with its result; an
// owner that is dead or does not answer gives 503 call_owner_unavailable at once; a forwarded request's signature
// and body are checked. Runs on PostgreSQL whichever half of the suite runs it (one skipped test without it).
import t from 'tap';
import { hostname } from 'node:os';
import { randomBytes } from 'node:crypto';
import { CallRepo } from '../../src/store/calls.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { FORWARDING_KEY_PURPOSE, forwardHeaders } from '../../src/http/cluster/forward-signature.js';
import type { SimulatedCall } from '../../src/engine/sandbox/index.js';
import type { Harness } from '../helpers/harness.js';
import { twoNodesWithNumber } from '../helpers/two-nodes.js';
import { until } from '../helpers/waits.js';
import { cli } from '../helpers/spawn.js';
import { databaseEnv } from '../helpers/backends.js';

const DID = '+15550001000';
const PARTY = '+15550004444';
const HOLD = '<Response><Say loop="0">Please hold.</Say></Response>';
const heard = (call: SimulatedCall) => call.transcript.flatMap((e) => (e.type === 'heard-say' ? [e.text] : []));

t.test('two control planes: commands for a call the other node carries are forwarded to it', async (t) => {
  const cluster = await twoNodesWithNumber(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_TRUSTED_PROXIES: '127.0.0.1' } }, DID);
  if (!cluster) return;
  const { a, b, account, key } = cluster;

  const advertised = new Map((await a.store.instances.list()).map((i) => [i.id, i.address]));
  t.equal(advertised.get(a.store.instanceId), a.url, "A advertises its listener's address");
  t.equal(advertised.get(b.store.instanceId), b.url, 'and B its own');
  const clusterStatus = async () => (JSON.parse((await cli(a.dataDir, databaseEnv(a.config.database))('--json', 'cluster', 'status')).stdout) as {
    nodes: Array<{ id: string; state: string; address: string | null; open_calls: number }>;
  }).nodes;
  t.same((await clusterStatus()).map((n) => [n.id, n.state, n.address]).sort(), [[a.store.instanceId, 'alive', a.url], [b.store.instanceId, 'alive', b.url]].sort(),
    'ringbase cluster status lists both nodes, alive, with their addresses');

  /** A call placed through B (so B carries it), answered and holding. */
  async function heldOnB(): Promise<{ sid: string; party: SimulatedCall }> {
    const placed = await b.request('POST', '/api/calls', { key, body: { from: DID, to: PARTY, markup: HOLD } });
    t.equal(placed.status, 201, 'placed through B');
    const sid = placed.body.sid as string;
    await until('the call answered on B', 10_000, async () => (await a.store.calls.get(sid))?.status === 'in-progress');
    t.equal((await a.store.calls.get(sid))?.owner, b.store.instanceId, 'B carries it');
    return { sid, party: b.engine.partyCalls(PARTY).at(-1)! };
  }

  const redirected = await heldOnB();
  const moved = await a.request('POST', `/api/calls/${redirected.sid}`, { key, body: { markup: '<Response><Say>Moved by A.</Say></Response>' } });
  t.equal(moved.status, 200, 'a redirect sent to A is carried out');
  t.equal(moved.body.sid, redirected.sid, "and answered with B's view of the call");
  await redirected.party.ended;
  t.ok(heard(redirected.party).includes('Moved by A.'), 'the party of the call B carries heard the new document');

  const recorded = await heldOnB();
  const started = await a.request('POST', `/api/calls/${recorded.sid}/recordings`, { key, body: {} });
  t.equal(started.status, 201, 'a recording started through A');
  const paused = await a.request('POST', `/api/calls/${recorded.sid}/recordings/${started.body.sid}`, { key, body: { status: 'paused' } });
  t.match(paused, { status: 200, body: { status: 'paused' } }, 'and paused through A');
  const ended = await a.request('POST', `/api/calls/${recorded.sid}`, { key, body: { status: 'completed' } });
  t.match(ended, { status: 200, body: { status: 'completed' } }, 'a hang-up sent to A ends the call B carries');
  await bounded(recorded.party.ended);

  const gone = await a.request('POST', `/api/calls/${recorded.sid}`, { key, body: { status: 'completed' } });
  t.match(gone, { status: 409, body: { code: 'call_ended' } }, 'an ended call is answered from the store, not forwarded');

  // A call whose owner is another node that does not answer (its address closed), or is dead (no beat for 15 s). The
  // call is a row of that node's alone (nothing carries it here), as a node that died leaves them.
  await a.store.instances.register('ghost', hostname(), process.pid);
  await a.store.instances.advertise('ghost', 'http://127.0.0.1:9');
  const ghostCall = `CA${randomBytes(16).toString('hex')}`;
  await new CallRepo(a.store.sql, a.clock, 'ghost').create({ sid: ghostCall, accountId: account.id, direction: 'outbound-api', from: DID, to: PARTY, status: 'in-progress' });
  t.match((await clusterStatus()).find((n) => n.id === 'ghost'), { state: 'alive', open_calls: 1 }, 'cluster status: a third node, alive, with its call');
  const startedAt = Date.now();
  const unanswered = await a.request('POST', `/api/calls/${ghostCall}`, { key, body: { status: 'completed' } });
  t.match(unanswered, { status: 503, body: { code: 'call_owner_unavailable' } }, 'an owner that does not answer: 503');
  t.equal(unanswered.headers.get('retry-after'), '5');
  t.ok(Date.now() - startedAt < 3_000, `at once (${Date.now() - startedAt} ms), not after a hang`);
  // Silent past the stale period, and claimed by a survivor finishing its calls: a living node that is neither A nor
  // B, whose claim their sweeps leave to it, so the call stays open for the look that follows.
  await a.store.instances.register('keeper', hostname(), process.pid);
  await a.store.sql.run('UPDATE instances SET beat_at = ?, reconciled_by = ? WHERE id = ?', [new Date(Date.now() - 60_000).toISOString(), 'keeper', 'ghost']);
  t.match(await a.request('POST', `/api/calls/${ghostCall}`, { key, body: { status: 'completed' } }), { status: 503, body: { code: 'call_owner_unavailable' } },
    'an owner silent past the stale period: 503 without trying it');
  t.match((await clusterStatus()).find((n) => n.id === 'ghost'), { state: 'reconciled', open_calls: 1 }, 'cluster status: the silent node, being reconciled');

  const orphan = await heldOnB();
  // What a peer checks of a forwarded request: the signature, and the body against its signed digest.
  const url = `/api/calls/${orphan.sid}`;
  const signedFor = (body: string) => forwardHeaders(createSecretBox(a.masterKey).derive(FORWARDING_KEY_PURPOSE), a.store.instanceId, { method: 'POST', url, body }, Date.now());
  const tampered = await b.request('POST', url, { key, body: { status: 'completed' }, headers: signedFor(JSON.stringify({ status: 'canceled' })) });
  t.match(tampered, { status: 400, body: { code: 'forwarded_body_mismatch' } }, 'a forwarded body other than the signed one is refused');
  const forged = await a.request('POST', url, { key, body: { status: 'completed' }, headers: { ...signedFor(JSON.stringify({ status: 'completed' })), 'x-ringbase-forward-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}` } });
  t.match(forged, { status: 200, body: { status: 'completed' } }, "a forged mark is ignored: A handles it as a client's request and forwards it to B");
  await bounded(orphan.party.ended);
  t.ok(b.logs.some((l) => l.includes('did not check out')) || a.logs.some((l) => l.includes('did not check out')), 'and says so in its log');

  // The preview root: a change to a participant goes to the node holding its leg, which B does (it placed the call).
  const v1 = (h: Harness, method: string, path: string, body?: Record<string, string>) =>
    h.request(method, path, { key, ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });
  const added = await v1(b, 'POST', '/v1/conferences/Standup/participants', { from: DID, to: PARTY });
  t.equal(added.status, 201, 'a participant added through B');
  const { conference_sid: confSid, call_sid: callSid } = added.body as { conference_sid: string; call_sid: string };
  await until('the participant in the room', 10_000, async () => (await a.store.conferences.participant(confSid, callSid))?.status === 'in-progress');
  const muted = await v1(a, 'POST', `/v1/conferences/${confSid}/participants/${callSid}`, { muted: 'true' });
  t.match(muted, { status: 200, body: { call_sid: callSid, muted: true } }, 'muted through A');
  // Counted once, by A, which took it (B does not count it again), in the key's one window across the nodes: one
  // less than after B's add, or the first of a new window when the wait above crossed into one.
  const header = (r: typeof added, name: string) => Number(r.headers.get(name));
  const sameWindow = header(muted, 'x-ratelimit-reset') === header(added, 'x-ratelimit-reset');
  t.equal(header(muted, 'x-ratelimit-remaining'), sameWindow ? header(added, 'x-ratelimit-remaining') - 1 : header(muted, 'x-ratelimit-limit') - 1,
    `the request counted once across the nodes (${sameWindow ? 'same window' : 'a new window'})`);
  const removed = await v1(a, 'DELETE', `/v1/conferences/${confSid}/participants/${callSid}`);
  t.equal(removed.status, 204, 'and removed through A');
  await until('the participant gone', 10_000, async () => (await a.store.conferences.participant(confSid, callSid))?.status === 'completed');
});

/** The far end's hang-up, within 10 s. */
async function bounded(ended: Promise<unknown>): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([ended, new Promise((_, reject) => { timer = setTimeout(() => reject(new Error('the call did not end within 10 s')), 10_000); })]);
  clearTimeout(timer);
}
