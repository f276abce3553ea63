// Supervisor monitor, whisper and barge on the sandbox engine, whose rooms answer "does A hear B": a caller in
// <Enqueue> talks with an agent; a supervisor called in through POST /v1/agents/{sid}/monitor hears both, and is
// heard by nobody (monitor), by the agent only (whisper) or by both (barge). Its call ends with the agent's. The
// agent console's supervise form does the same.
import t from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { final, makeTrunk, scene, CALLER, DID } from '../engine-suite/flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { acdRoom } from '../../src/acd/waiter.js';
import { UserService } from '../../src/users/service.js';
import { DashboardClient, PASSWORD } from '../dashboard/client.js';

const SUPERVISOR = '+15550007777';
const CUSTOMER = '+15550006666';
/**
 * How long an agent's seat talks before hanging up, in the sandbox's clock (50× real time): an hour is 72 s real. The
 * tests end the call themselves once they have checked the room; at 20 s (0.4 s real) a loaded machine let the
 * agent hang up before the supervisor was called in, and the monitor request found the agent idle.
 */
const TALK_MS = 3_600_000;

for (const [mode, agentHears, callerHears] of [['monitor', false, false], ['whisper', true, false], ['barge', true, true]] as const) {
  t.test(`${mode}: the supervisor hears both; the agent ${agentHears ? 'hears' : 'does not hear'} it, the caller ${callerHears ? 'hears' : 'does not hear'} it`, async (t) => {
    const d = await sandboxDriver(t);
    const s = await scene(t, d);
    const v1 = (method: string, path: string, body?: Record<string, unknown>) => d.h.request(method, path, { ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });
    await v1('POST', '/v1/queues', { friendly_name: 'support' });
    const seat = await makeTrunk(d, { transport: 'udp' });
    await d.agentSeat(seat, { behavior: 'answer', hangupAfterMs: TALK_MS });
    const agent = (await v1('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: seat.id, queues: ['support'] })).body;
    t.equal((await v1('POST', `/v1/agents/${agent.sid}/monitor`, { to: SUPERVISOR })).status, 409, 'nobody to monitor while the agent is idle');
    await v1('POST', `/v1/agents/${agent.sid}`, { status: 'available' });
    await d.party(SUPERVISOR, { behavior: 'answer' });
    s.app.on('/voice', xml('<Enqueue>support</Enqueue>'));
    const call = await d.inbound(CALLER, DID);
    await until('the agent is busy', 10_000, async () => (await v1('GET', `/v1/agents/${agent.sid}`)).body.activity === 'busy');
    const callerSid = (await v1('GET', `/v1/agents/${agent.sid}`)).body.current_call_sid as string;
    const room = acdRoom(callerSid);
    const rooms = d.h.engine.rooms;
    await until('the agent in the room', 10_000, () => rooms.roster(room).length === 2);

    const placed = await v1('POST', `/v1/agents/${agent.sid}/monitor`, { to: SUPERVISOR, mode });
    t.equal(placed.status, 201, JSON.stringify(placed.body));
    t.match(placed.body, { agent_sid: agent.sid, monitored_call_sid: callerSid, mode, status: 'queued' });
    await until('the supervisor in the room', 10_000, () => rooms.roster(room).length === 3);
    const [caller, agentLine, supervisor] = rooms.roster(room) as [string, string, string];
    t.ok(rooms.hears(room, supervisor, caller) && rooms.hears(room, supervisor, agentLine), 'the supervisor hears the caller and the agent');
    t.equal(rooms.hears(room, agentLine, supervisor), agentHears, 'the agent');
    t.equal(rooms.hears(room, caller, supervisor), callerHears, 'the caller');
    t.ok(rooms.hears(room, caller, agentLine) && rooms.hears(room, agentLine, caller), 'caller and agent still talk');

    call.hangup();
    await call.ended;
    t.equal((await final(d, placed.body.call_sid)).status, 'completed', "the supervisor's call ended with the agent's");
  });
}

t.test('monitor input: an unknown agent is 404, an unknown mode 400', async (t) => {
  const d = await sandboxDriver(t);
  await scene(t, d);
  const v1 = (path: string, body: Record<string, unknown>) => d.h.request('POST', path, { body, headers: { 'x-forwarded-proto': 'https' } });
  const seat = await makeTrunk(d, { transport: 'udp' });
  const agent = (await d.h.request('POST', '/v1/agents', { body: { friendly_name: 'Sam', trunk_id: seat.id }, headers: { 'x-forwarded-proto': 'https' } })).body;
  t.equal((await v1(`/v1/agents/AG${'0'.repeat(32)}/monitor`, { to: SUPERVISOR })).status, 404);
  const bad = await v1(`/v1/agents/${agent.sid}/monitor`, { to: SUPERVISOR, mode: 'shout' });
  t.equal(bad.status, 400);
  t.match(bad.body.error, { param: 'mode' });
});

t.test('the agent console calls a supervisor into a busy agent\'s call; bad input is refused in words', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const v1 = (method: string, path: string, body?: Record<string, unknown>) => d.h.request(method, path, { ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });
  const users = new UserService(d.h.store.users, d.h.clock);
  const { user } = await users.create(s.accountId, 'lead@example.com');
  await users.setPassword(user.id, PASSWORD);
  const c = new DashboardClient(d.h.url);
  await c.signIn('lead@example.com', PASSWORD);
  await v1('POST', '/v1/queues', { friendly_name: 'support' });
  const seat = await makeTrunk(d, { transport: 'udp' });
  await d.agentSeat(seat, { behavior: 'answer', hangupAfterMs: TALK_MS });
  const agent = (await v1('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: seat.id, queues: ['support'] })).body;
  await v1('POST', `/v1/agents/${agent.sid}`, { status: 'available' });
  await d.party(SUPERVISOR, { behavior: 'answer' });
  s.app.on('/voice', xml('<Enqueue>support</Enqueue>'));
  const call = await d.inbound(CALLER, DID);
  await until('the agent is busy', 10_000, async () => (await v1('GET', `/v1/agents/${agent.sid}`)).body.activity === 'busy');
  const path = `/dashboard/agents/${agent.sid}`;
  t.match((await c.get(path)).text, /id="monitor-form"/, 'a busy agent\'s console offers supervision');
  const refused = await c.submit(path, `${path}/monitor`, { to: 'not a phone', mode: 'whisper' });
  t.equal(refused.status, 422);
  t.match(refused.text, /E\.164 number, a sip: URI or client:/);
  const tracked: Array<Promise<unknown>> = [];
  const track = d.h.app.calls.track.bind(d.h.app.calls);
  d.h.app.calls.track = (job) => { tracked.push(job); return track(job); };
  const placed = await c.submit(path, `${path}/monitor`, { to: SUPERVISOR, mode: 'whisper' });
  t.equal(placed.location, `${path}?done=supervisor-called`);
  t.equal(tracked.length, 1, "the supervisor's call flow is tracked by the dispatcher: shutdown and settled() wait for it");
  const room = acdRoom((await v1('GET', `/v1/agents/${agent.sid}`)).body.current_call_sid);
  await until('the supervisor in the room', 10_000, () => d.h.engine.rooms.roster(room).length === 3);
  const [caller, agentLine, supervisor] = d.h.engine.rooms.roster(room) as [string, string, string];
  t.ok(d.h.engine.rooms.hears(room, agentLine, supervisor) && !d.h.engine.rooms.hears(room, caller, supervisor), 'whispering');
  call.hangup();
  await call.ended;
});

t.test("a scheduled callback's call is supervised as any agent call, from the callback's number by default", async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const v1 = (method: string, path: string, body?: Record<string, unknown>) => d.h.request(method, path, { ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });
  await v1('POST', '/v1/queues', { friendly_name: 'callbacks', wrap_up_seconds: 0 });
  const seat = await makeTrunk(d, { transport: 'udp' });
  await d.agentSeat(seat, { behavior: 'answer', hangupAfterMs: 60_000 });
  const agent = (await v1('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: seat.id, queues: ['callbacks'] })).body;
  await v1('POST', `/v1/agents/${agent.sid}`, { status: 'available' });
  await d.party(CUSTOMER, { behavior: 'answer', hangupAfterMs: 60_000 });
  await d.party(SUPERVISOR, { behavior: 'answer' });
  const made = await v1('POST', '/v1/callbacks', { queue: 'callbacks', to: CUSTOMER, from: DID, due_at: new Date(d.h.clock.now()).toISOString() });
  t.equal(made.status, 201, JSON.stringify(made.body));
  await until('the agent is busy', 10_000, async () => (await v1('GET', `/v1/agents/${agent.sid}`)).body.activity === 'busy');
  const callSid = (await v1('GET', `/v1/agents/${agent.sid}`)).body.current_call_sid as string;
  const room = acdRoom(callSid);
  const rooms = d.h.engine.rooms;
  await until('the agent and the customer in the room', 10_000, () => rooms.roster(room).length === 2);

  const placed = await v1('POST', `/v1/agents/${agent.sid}/monitor`, { to: SUPERVISOR });
  t.equal(placed.status, 201, JSON.stringify(placed.body));
  t.match(placed.body, { agent_sid: agent.sid, monitored_call_sid: callSid, mode: 'monitor' });
  await until('the supervisor in the room', 10_000, () => rooms.roster(room).length === 3);
  const [first, second, supervisor] = rooms.roster(room) as [string, string, string];
  t.ok(rooms.hears(room, supervisor, first) && rooms.hears(room, supervisor, second), 'the supervisor hears the agent and the customer');
  t.ok(!rooms.hears(room, first, supervisor) && !rooms.hears(room, second, supervisor), 'and is heard by neither (monitor)');
  t.equal((await d.h.store.calls.get(placed.body.call_sid))!.from, DID, "called from the callback's number");
  t.ok((await d.h.store.calls.timeline(callSid)).some((e) => e.kind === 'supervisor-called'), "on the customer call's timeline");
  await until('the callback completed', 20_000, async () => (await d.h.store.scheduledCallbacks.get(made.body.sid))!.status === 'completed', 50);
  t.equal((await final(d, placed.body.call_sid)).status, 'completed', "the supervisor's call ended with the agent's");
});
