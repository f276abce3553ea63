// Scheduled callbacks of a queue with answering-machine detection, on the sandbox engine (whose scripted customer
// sounds like a person, a machine ending in a beep, or a fax): the customer is dialled before any agent is rung; a
// person takes the callback's place in line and talks with the agent; a machine never reaches an agent and the
// attempt is retried, or the queue's message is said after the beep; a fax fails the callback for good. Bad queue
// settings get 400 naming the field.
import t, { type Test } from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { scene, DID } from '../engine-suite/flows.js';
import { agent, staff, v1 } from '../engine-suite/acd-helpers.js';
import { until } from '../helpers/waits.js';
import type { EngineDriver } from '../engine-suite/driver.js';
import type { FarEndAudio } from '../../src/engine/sandbox/index.js';

const CUSTOMER = '+15550006666';
const WAIT_MS = 30_000;

/** A staffed queue with detection, and a callback due now to a customer who sounds like `audio`. */
async function callBack(t: Test, queue: Record<string, unknown>, audio: FarEndAudio) {
  const d = await sandboxDriver(t);
  await scene(t, d);
  const { agents: [a] } = await staff(d, { friendly_name: 'callbacks', wrap_up_seconds: 0, ...queue }, ['answer'], 3_000);
  await d.party(CUSTOMER, { behavior: 'answer', audio });
  const made = await v1(d, 'POST', '/v1/callbacks', { queue: 'callbacks', to: CUSTOMER, from: DID, due_at: new Date(d.h.clock.now()).toISOString() });
  t.equal(made.status, 201, JSON.stringify(made.body));
  const sid = made.body.sid as string;
  await until('the attempt ended', WAIT_MS, async () => {
    const c = (await v1(d, 'GET', `/v1/callbacks/${sid}`)).body;
    return c.status !== 'dialing' && (c.status !== 'scheduled' || c.attempts > 0);
  }, 50);
  return { d, agentSid: a!.sid, callback: (await v1(d, 'GET', `/v1/callbacks/${sid}`)).body };
}

const legsOf = (d: EngineDriver, callSid: string) =>
  d.h.store.sql.all<{ to_addr: string }>('SELECT to_addr FROM calls WHERE sid = ? OR parent_sid = ? ORDER BY created_at, sid', [callSid, callSid]);

const timeline = async (d: EngineDriver, callSid: string, kind: string) =>
  (await d.h.store.sql.all<{ detail: string }>('SELECT detail FROM call_timeline WHERE call_sid = ? AND kind = ?', [callSid, kind])).map((r) => JSON.parse(r.detail) as Record<string, unknown>);

t.test('a person answers: dialled before the agent, then the agent is rung and they talk; completed, answered_by human', async (t) => {
  const { d, agentSid, callback } = await callBack(t, { machine_detection: 'enable' }, 'person');
  t.match(callback, { status: 'completed', attempts: 1, agent_sid: agentSid, answered_by: 'human', last_error: null });
  t.same((await legsOf(d, callback.call_sid)).map((l) => l.to_addr), [CUSTOMER, `agent:${agentSid}`], 'the customer first, then the agent');
  t.match(await timeline(d, callback.call_sid, 'queue-bridged'), [{ agent_sid: agentSid }], 'the customer waited in line and was put through');
  await until('the agent is idle', WAIT_MS, async () => (await agent(d, agentSid)).activity === 'idle');
});

t.test('a machine answers, machine_action retry: no agent is rung, the attempt is tried again later', async (t) => {
  const { d, agentSid, callback } = await callBack(t, { machine_detection: 'detect_message_end' }, 'machine-beep');
  t.match(callback, { status: 'scheduled', attempts: 1, answered_by: 'machine_end_beep', last_error: 'a machine answered (machine_end_beep)' });
  t.ok(Date.parse(callback.due_at) >= d.h.clock.now() + 4 * 60_000, 'due again about 5 minutes later');
  t.same((await legsOf(d, callback.call_sid)).map((l) => l.to_addr), [CUSTOMER], 'the agent was never rung');
  t.match(await timeline(d, callback.call_sid, 'callback-machine'), [{ callback_sid: callback.sid, answered_by: 'machine_end_beep', action: 'retry' }]);
  await until('the reserved agent is free again', WAIT_MS, async () => (await agent(d, agentSid)).activity === 'idle');
});

t.test('a machine answers, machine_action message: the message is said after the beep; completed, no agent rung', async (t) => {
  const message = 'Hello, this is Example Corp returning your call. Please call us back.';
  const { d, agentSid, callback } = await callBack(t, { machine_detection: 'detect_message_end', machine_action: 'message', machine_message: message }, 'machine-beep');
  t.match(callback, { status: 'completed', attempts: 1, answered_by: 'machine_end_beep', agent_sid: null });
  t.same((await legsOf(d, callback.call_sid)).map((l) => l.to_addr), [CUSTOMER], 'the agent was never rung');
  t.match(await timeline(d, callback.call_sid, 'callback-machine'), [{ answered_by: 'machine_end_beep', action: 'message' }]);
  t.same(d.h.engine.partyCalls(CUSTOMER)[0]!.transcript.flatMap((e) => (e.type === 'heard-say' ? [e.text] : [])), [message], 'the machine heard the message');
  t.match(await agent(d, agentSid), { activity: 'idle' });
});

t.test('a fax answers: the callback fails for good', async (t) => {
  const { d, callback } = await callBack(t, { machine_detection: 'enable' }, 'fax');
  t.match(callback, { status: 'failed', attempts: 1, answered_by: 'fax', last_error: 'a fax machine answered' });
  t.same((await legsOf(d, callback.call_sid)).map((l) => l.to_addr), [CUSTOMER]);
});

t.test("a queue's machine settings: shown on the queue; a message needs its text and detect_message_end (400 naming the field)", async (t) => {
  const d = await sandboxDriver(t);
  await scene(t, d);
  const made = await v1(d, 'POST', '/v1/queues', { friendly_name: 'outbound' });
  t.match(made.body, { machine_detection: null, machine_action: 'retry', machine_message: null }, 'off by default');
  const sid = made.body.sid as string;
  for (const [body, param] of [
    [{ machine_action: 'message' }, 'machine_message'],
    [{ machine_action: 'message', machine_message: 'Call us back.' }, 'machine_detection'],
    [{ machine_action: 'message', machine_message: '   ', machine_detection: 'detect_message_end' }, 'machine_message'],
    [{ machine_detection: 'sometimes' }, 'machine_detection'],
    [{ machine_action: 'hang-up' }, 'machine_action'],
    [{ machine_message: 'a\u202Eb' }, 'machine_message'],
  ] as const) {
    const res = await v1(d, 'POST', `/v1/queues/${sid}`, body);
    t.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    t.equal(res.body.error?.param, param, `names ${param}`);
  }
  t.equal((await v1(d, 'POST', `/v1/queues/${sid}`, { machine_detection: 'sometimes' })).body.error.message,
    'The machine_detection parameter must be one of: enable, detect_message_end, null.', 'a nullable choice lists null among the values');
  const set = await v1(d, 'POST', `/v1/queues/${sid}`, { machine_detection: 'detect_message_end', machine_action: 'message', machine_message: ' Call us back. ' });
  t.match(set.body, { machine_detection: 'detect_message_end', machine_action: 'message', machine_message: 'Call us back.' });
  const off = await v1(d, 'POST', `/v1/queues/${sid}`, { machine_detection: null });
  t.equal(off.status, 400, 'detection cannot be turned off under a message action');
  const retry = await v1(d, 'POST', `/v1/queues/${sid}`, { machine_detection: null, machine_action: 'retry' });
  t.match(retry.body, { machine_detection: null, machine_action: 'retry', machine_message: 'Call us back.' }, 'turned off together');
});
