// ACD state a dead control plane left behind: its callers' queue places, the agents it had reserved, ringing or
// talking, and the callbacks it was dialing are put right once crash reconciliation has finished its calls, so the
// queue is empty, every agent takes calls again and the callbacks are scheduled again; what belongs to live calls
// and live processes is left alone.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { FakeClock } from '../../src/clock.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../src/acd/queues.js';
import { reconcileDeadInstances } from '../../src/recovery/reconcile.js';
import { hostname } from 'node:os';

const at = (ms: number) => new Date(ms).toISOString();

t.test("a dead instance's waiting callers leave the queue and its agents are free again", async (t) => {
  const clock = new FakeClock(Date.parse('2026-11-25T10:00:00Z'));
  const h = await startHarness(t, { clock });
  const { store } = h;
  const { id: accountId } = await h.account();
  const deadBeat = clock.now() - 20_000;
  await store.sql.run('INSERT INTO instances (id, host, pid, started_at, beat_at) VALUES (?, ?, ?, ?, ?)', ['deadpeer', 'other-host', 1, at(deadBeat - 60_000), at(deadBeat)]);
  const call = (sid: string, owner: string) => store.sql.run(`INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, created_at, answered_at, owner)
    VALUES (?, ?, 'inbound', '+15557770001', '+15550001000', 'in-progress', ?, ?, ?)`, [sid, accountId, at(deadBeat - 40_000), at(deadBeat - 30_000), owner]);
  const queue = await store.queues.create(accountId, 'QU1', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'support' });
  const trunk = (await h.request('POST', '/api/partner/trunks', { body: { transport: 'udp' } })).body as { id: number };
  const agent = async (sid: string, activity: string, callSid: string | null) => {
    const a = await store.agents.create(accountId, sid, { friendlyName: sid, trunkId: trunk.id, queueIds: [queue.id], status: 'available', breakReason: null });
    await store.sql.run('UPDATE acd_agents SET activity = ?, current_call_sid = ? WHERE id = ?', [activity, callSid, a.id]);
    return a;
  };
  for (const sid of ['CAtalking', 'CAringing', 'CAwaiting']) await call(sid, 'deadpeer');
  await call('CAlive', store.instanceId);
  const talking = await agent('AGtalking', 'busy', 'CAtalking');
  const ringing = await agent('AGringing', 'ringing', 'CAringing');
  const live = await agent('AGlive', 'busy', 'CAlive');
  const member = (callSid: string, at: number, offeredTo: number | null) =>
    store.sql.run('INSERT INTO acd_members (call_sid, queue_id, enqueued_at, offered_to) VALUES (?, ?, ?, ?)', [callSid, queue.id, at, offeredTo]);
  await member('CAringing', deadBeat - 10_000, ringing.id);
  await member('CAwaiting', deadBeat - 5_000, null);
  // A callback each was dialing: the dead peer, and this (live) process. Their next time is an hour away, so the
  // sweep here does not dial them again within the test.
  for (const [sid, by] of [['CBdead', 'deadpeer'], ['CBlive', store.instanceId]] as const) {
    await store.scheduledCallbacks.create({ sid, accountId, queueId: queue.id, to: '+15550100003', from: '+15550100002', dueAt: clock.now() + 3_600_000, attributes: {}, leadSid: null });
    await store.sql.run("UPDATE acd_callbacks SET status = 'dialing', attempts = 1, claimed_by = ? WHERE sid = ?", [by, sid]);
  }

  // What the instance heartbeat does every 5 s (src/recovery), then the ACD's own sweeps.
  await reconcileDeadInstances(h.app.callServices, { self: store.instanceId, host: hostname(), nowMs: clock.now(), staleMs: 15_000, pidAlive: () => true });
  await clock.advance(12_000);
  t.match(await store.calls.get('CAwaiting'), { status: 'completed', hangupCause: 'platform-restart' }, 'crash reconciliation finished the calls');
  t.equal((await store.queues.figures(queue)).size, 0, 'the dead callers left the queue');
  t.match(await store.agents.getForAccount(accountId, talking.sid), { activity: 'idle', currentCallSid: null }, 'the talking agent: wrap-up ended, idle');
  t.match(await store.agents.getForAccount(accountId, ringing.sid), { activity: 'idle', currentCallSid: null }, 'the ringing agent: idle');
  t.match(await store.agents.getForAccount(accountId, live.sid), { activity: 'busy', currentCallSid: 'CAlive' }, "a live call's agent is left alone");
  t.match(await store.scheduledCallbacks.get('CBdead'), { status: 'scheduled', attempts: 1, lastError: 'the platform restarted during the attempt' },
    "the dead peer's callback is scheduled again");
  t.match(await store.scheduledCallbacks.get('CBlive'), { status: 'dialing' }, "a live process's callback is left to it");
});
