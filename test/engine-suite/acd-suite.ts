// ACD flows on every engine: a caller in <Enqueue> is offered to an agent's seat, the agent answers and they talk,
// the Enqueue action hears how it went, the disposition ends wrap-up; a missed offer goes to the next agent; a
// caller with no agent times out (no-agent) or hangs up (abandoned). Events are read as the subscriber gets them.
import type { Test } from 'tap';
import type { EngineDriver } from './driver.js';
import { final, makeTrunk, scene, CALLER, DID, type Scene } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { NumberService } from '../../src/numbers/service.js';
import { agent, eventData, operatorMetrics, staff, subscribe, v1 } from './acd-helpers.js';

type MakeDriver = (t: Test) => Promise<EngineDriver>;
const WAIT_MS = 30_000;
const CUSTOMER = '+15550006666';

export function acdSuite(t: Test, make: MakeDriver): void {
  t.test('Enqueue: the agent answers and talks with the caller; the action hears bridged; a disposition ends wrap-up', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await subscribe(d, s, ['queued', 'disposition']);
    const { queueSid, agents: [a] } = await staff(d, { friendly_name: 'support', wrap_up_seconds: 600 }, ['answer']);
    s.app.on('/voice', xml('<Say>Please hold.</Say><Enqueue action="/after">support</Enqueue>'));
    s.app.on('/after', xml('<Say>Thanks for calling.</Say><Hangup/>'));
    const call = await d.inbound(CALLER, DID);
    const after = await s.app.waitFor('/after');
    const sid = after.json.call_sid as string;
    t.match(after.json, { queue_result: 'bridged', queue_sid: queueSid, agent_sid: a!.sid });
    t.type(after.json.queue_time, 'number');
    await call.ended;
    t.equal((await final(d, sid)).status, 'completed');
    const leg = await d.h.store.sql.one<{ sid: string }>('SELECT sid FROM calls WHERE parent_sid = ?', [sid]);
    t.match(await final(d, leg!.sid), { status: 'completed', direction: 'outbound-dial', to: `agent:${a!.sid}` }, "the agent's leg is a child call");
    t.match((await eventData(s, 'queued'))[0], { queue: 'support', queue_sid: queueSid, position: 1, wait_seconds: 0 });
    t.match(await agent(d, a!.sid), { activity: 'wrap-up', current_call_sid: sid }, 'wrap-up after the call');

    const set = await v1(d, 'POST', '/v1/dispositions', { call_sid: sid, disposition: 'sale', notes: 'two seats' });
    t.equal(set.status, 201, JSON.stringify(set.body));
    t.match(set.body, { call_sid: sid, disposition: 'sale', agent_sid: a!.sid });
    t.match(await agent(d, a!.sid), { activity: 'idle', current_call_sid: null }, 'the disposition ended wrap-up');
    t.match((await eventData(s, 'disposition'))[0], { disposition: 'sale', set_by: a!.sid, notes: 'two seats', from: CALLER });
    const kinds = (await d.h.store.calls.timeline(sid)).map((e) => e.kind);
    t.ok(['queued', 'queue-offer', 'queue-bridged', 'queue-result'].every((k) => kinds.includes(k)), kinds.join(' '));
    const metrics = (await operatorMetrics(d)).text;
    for (const line of [`ringbase_acd_offered_total{queue="${queueSid}"} 1`, `ringbase_acd_answered_total{queue="${queueSid}"} 1`,
      `ringbase_acd_queue_waiting{queue="${queueSid}"} 0`, `ringbase_acd_agents{queue="${queueSid}",activity="idle"} 1`]) {
      t.ok(metrics.includes(line), line);
    }
  });

  t.test('a seat that does not answer: the next agent gets the caller; max_no_answer puts the first on break', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const { agents: [silent, answering] } = await staff(d, { friendly_name: 'sales', ring_timeout_seconds: 5, max_no_answer: 1, wrap_up_seconds: 0 }, ['no-answer', 'answer']);
    s.app.on('/voice', xml('<Enqueue action="/after">sales</Enqueue>'));
    s.app.on('/after', xml('<Hangup/>'));
    // The agent idle longest is offered first: the silent one was made available first.
    const call = await d.inbound(CALLER, DID);
    const after = await s.app.waitFor('/after');
    await call.ended;
    t.match(after.json, { queue_result: 'bridged', agent_sid: answering!.sid });
    t.match(await agent(d, silent!.sid), { status: 'break', break_reason: 'missed 1 offered calls in a row', activity: 'idle' });
    await until('the answering agent is idle again', WAIT_MS, async () => (await agent(d, answering!.sid)).activity === 'idle');
    const kinds = (await d.h.store.calls.timeline(after.json.call_sid)).map((e) => e.kind);
    t.equal(kinds.filter((k) => k === 'queue-offer').length, 2, 'offered twice');
  });

  t.test('an agent who goes on break while its seat rings: the offer is withdrawn at once, the next agent rings, no miss counted', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const { agents: [leaving, next] } = await staff(d, { friendly_name: 'sales', ring_timeout_seconds: 20, max_no_answer: 1, wrap_up_seconds: 0 }, ['no-answer', 'answer']);
    // The caller hears a prompt first: the real driver hands the call over once the caller hears something.
    s.app.on('/voice', xml('<Say>Please hold.</Say><Enqueue action="/after">sales</Enqueue>'));
    s.app.on('/after', xml('<Hangup/>'));
    const call = await d.inbound(CALLER, DID);
    const seatCalls = async (agentSid: string, where: string) =>
      (await d.h.store.sql.one<{ n: number }>(`SELECT COUNT(*) AS n FROM calls WHERE to_addr = ? AND ${where}`, [`agent:${agentSid}`]))!.n;
    const childRinging = async (agentSid: string) => (await seatCalls(agentSid, "status = 'ringing'")) === 1;
    await until("the first agent's seat rings", WAIT_MS, () => childRinging(leaving!.sid));
    const breakAt = Date.now();
    const set = await v1(d, 'POST', `/v1/agents/${leaving!.sid}`, { status: 'break', break_reason: 'coffee' });
    t.equal(set.status, 200);
    await until("the next agent's seat rings", WAIT_MS, async () => (await childRinging(next!.sid)) || (await seatCalls(next!.sid, 'answered_at IS NOT NULL')) === 1);
    const rangAfterMs = Date.now() - breakAt;
    t.ok(rangAfterMs <= 500, `the next agent's seat rang ${rangAfterMs} ms after the break (at most 500)`);
    const after = await s.app.waitFor('/after');
    await call.ended;
    t.match(after.json, { queue_result: 'bridged', agent_sid: next!.sid });
    t.match(await d.h.store.sql.one('SELECT status, break_reason, missed_in_a_row FROM acd_agents WHERE sid = ?', [leaving!.sid]),
      { status: 'break', break_reason: 'coffee', missed_in_a_row: 0 }, 'on the break it chose, no miss counted');
    const withdrawn = await d.h.store.sql.one<{ sid: string }>('SELECT sid FROM calls WHERE to_addr = ?', [`agent:${leaving!.sid}`]);
    t.match(await final(d, withdrawn!.sid), { status: 'canceled' }, "the first seat's call was withdrawn (CANCEL)");
    const kinds = (await d.h.store.calls.timeline(after.json.call_sid)).map((e) => e.kind);
    t.notOk(kinds.includes('queue-offer-missed'), 'no missed offer on the timeline');
  });

  t.test('no agent: no-agent on entry, then max wait: no-agent again and the action hears timeout', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await subscribe(d, s, ['no-agent']);
    s.app.on('/voice', xml('<Enqueue action="/after" maxWait="10">nobody-home</Enqueue>'));
    s.app.on('/after', xml('<Say>Sorry.</Say><Hangup/>'));
    const call = await d.inbound(CALLER, DID);
    const after = await s.app.waitFor('/after');
    await call.ended;
    t.match(after.json, { queue_result: 'timeout', agent_sid: null });
    t.ok((after.json.queue_time as number) >= 10, `waited ${after.json.queue_time} s`);
    const events = await eventData(s, 'no-agent', 2);
    t.same(events.map((e) => e.reason).sort(), ['max-wait', 'none-available']);
    const q = await v1(d, 'GET', `/v1/queues/${after.json.queue_sid}`);
    t.match(q.body, { friendly_name: 'nobody-home', size: 0, max_wait_seconds: 600 }, 'a queue named by markup exists with the defaults');
  });

  t.test('a scheduled callback: the callback event, the agent rung first, then the customer; they talk; completed', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await subscribe(d, s, ['callback']);
    const { agents: [a] } = await staff(d, { friendly_name: 'callbacks', wrap_up_seconds: 0 }, ['answer'], 6_000);
    await d.party(CUSTOMER, { behavior: 'answer', hangupAfterMs: 3_000 });
    const due = new Date(d.h.clock.now()).toISOString();
    const made = await v1(d, 'POST', '/v1/callbacks', { queue: 'callbacks', to: CUSTOMER, from: DID, due_at: due, attributes: { name: 'Ada' } });
    t.equal(made.status, 201, JSON.stringify(made.body));
    t.match(made.body, { status: 'scheduled', attempts: 0, to: CUSTOMER });
    const [event] = await eventData(s, 'callback');
    t.match(event, { callback_sid: made.body.sid, phone: CUSTOMER, campaign: 'callbacks' });
    await until('the callback completed', WAIT_MS, async () => (await v1(d, 'GET', `/v1/callbacks/${made.body.sid}`)).body.status !== 'dialing'
      && (await v1(d, 'GET', `/v1/callbacks/${made.body.sid}`)).body.status !== 'scheduled', 50);
    const done = (await v1(d, 'GET', `/v1/callbacks/${made.body.sid}`)).body;
    t.match(done, { status: 'completed', attempts: 1, agent_sid: a!.sid, call_sid: /^CA/ });
    const customer = await final(d, done.call_sid);
    t.match(customer, { status: 'completed', to: CUSTOMER, direction: 'outbound-api' });
    t.ok(customer.answeredAt, 'the customer answered');
    const legs = await d.h.store.sql.all<{ to_addr: string }>('SELECT to_addr FROM calls WHERE sid = ? OR parent_sid = ? ORDER BY created_at, sid', [done.call_sid, done.call_sid]);
    t.same(legs.map((l) => l.to_addr), [`agent:${a!.sid}`, CUSTOMER], 'the agent was rung before the customer');
    await until('the agent is idle', WAIT_MS, async () => (await agent(d, a!.sid)).activity === 'idle');
  });

  t.test('a callback whose number moved to another account fails when due: its event says why, nobody is rung from the old number', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await subscribe(d, s, ['callback']);
    const { agents: [a] } = await staff(d, { friendly_name: 'callbacks', wrap_up_seconds: 0 }, ['answer'], 6_000);
    await d.party(CUSTOMER, { behavior: 'answer', hangupAfterMs: 3_000 });
    // Due two real seconds on: time enough to move the number first.
    const due = new Date(d.h.clock.now() + 2_000 * d.speed).toISOString();
    const made = await v1(d, 'POST', '/v1/callbacks', { queue: 'callbacks', to: CUSTOMER, from: DID, due_at: due });
    t.equal(made.status, 201, JSON.stringify(made.body));
    const numbers = new NumberService(d.h.store.numbers, { allowLocalTargets: true });
    await numbers.release(DID);
    await numbers.claim(DID, (await d.h.account()).id);
    const [event] = await eventData(s, 'callback');
    t.match(event, { callback_sid: made.body.sid, status: 'failed', reason: new RegExp(`${DID.replace('+', '\\+')} is not a number of this account`) });
    const failed = (await v1(d, 'GET', `/v1/callbacks/${made.body.sid}`)).body;
    t.match(failed, { status: 'failed', attempts: 1, call_sid: null, last_error: /is not a number of this account: the callback is not made/ }, 'failed for good, not retried');
    t.equal((await d.h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM calls'))?.n, 0, 'no call placed: neither the agent nor the customer rung');
    if (d.name === 'sandbox') t.same(d.h.engine.originated(), [], 'the engine was asked to dial nothing');
    t.match(await agent(d, a!.sid), { activity: 'idle', current_call_sid: null });
  });

  t.test("a callback whose customer does not answer is scheduled again 5 minutes on, the agent's time not counted as wrap-up", async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const { agents: [a] } = await staff(d, { friendly_name: 'callbacks', wrap_up_seconds: 600 }, ['answer'], 60_000);
    await d.party(CUSTOMER, { behavior: 'no-answer' });
    const made = await v1(d, 'POST', '/v1/callbacks', { queue: 'callbacks', to: CUSTOMER, from: DID, due_at: new Date(d.h.clock.now()).toISOString() });
    await until('the attempt ended', 60_000, async () => (await d.h.store.scheduledCallbacks.get(made.body.sid))!.lastError !== null, 50);
    const retried = (await d.h.store.scheduledCallbacks.get(made.body.sid))!;
    t.match(retried, { status: 'scheduled', attempts: 1, lastError: /not answered \(no-answer\)/ });
    t.ok(retried.dueAt >= d.h.clock.now() + 4 * 60_000, 'due again about 5 minutes later');
    await until('the agent is free again', WAIT_MS, async () => (await agent(d, a!.sid)).activity === 'idle');
    t.equal(s.app.requests.length, 0, 'no webhook involved');
  });

  t.test('a caller hanging up while waiting is abandoned, with its wait and place in line', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await subscribe(d, s, ['abandoned']);
    await v1(d, 'POST', '/v1/queues', { friendly_name: 'billing' });
    s.app.on('/voice', xml('<Enqueue>billing</Enqueue>'));
    const call = await d.inbound(CALLER, DID, { hangupAfterMs: 4_000 });
    await call.ended;
    const [abandoned] = await eventData(s, 'abandoned');
    t.match(abandoned, { queue: 'billing', position: 1, from: CALLER });
    t.ok((abandoned!.wait_seconds as number) >= 2, `waited ${abandoned!.wait_seconds} s`);
    const q = (await v1(d, 'GET', '/v1/queues')).body.data[0];
    t.equal(q.size, 0, 'the queue is empty again');
    t.ok((await operatorMetrics(d)).text.includes(`ringbase_acd_abandoned_total{queue="${q.sid}"} 1`), 'counted as abandoned');
  });
}
