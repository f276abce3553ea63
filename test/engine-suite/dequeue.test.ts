// <Dial><Queue> on the sandbox (issue 25 item 6): a call takes the first caller waiting in a queue, that caller
// hears the <Queue url> document alone first, then the two talk; both documents go on afterwards. An empty queue
// makes the Dial wait for the next caller up to its timeout; no such queue fails the Dial.
import t, { type Test } from 'tap';
import { sandboxDriver } from './sandbox-driver.js';
import { scene, CALLER, DID } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { v1 } from './conference-suite.js';
import { NumberService } from '../../src/numbers/service.js';
import type { SimulatedCall } from '../../src/engine/sandbox/index.js';

const AGENT_LINE = '+15550001001';
const AGENT = '+15557770009';

const said = (call: SimulatedCall, text: string) => call.transcript.filter((e) => e.type === 'heard-say' && e.text === text).length;
const inRoom = (call: SimulatedCall) => call.transcript.some((e) => e.type === 'conference-joined' && e.room.startsWith('acd-'));

async function setup(t: Test) {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  await new NumberService(d.h.store.numbers, { allowLocalTargets: true }).add(AGENT_LINE, s.accountId, { webhook_url: `${s.app.url}/agent` });
  s.app.on('/voice', xml('<Enqueue waitUrl="/wait" action="/after-wait">support</Enqueue>'));
  s.app.on('/wait', xml('<Say>Please wait.</Say><Pause length="1"/>'));
  s.app.on('/after-wait', xml('<Say>Thanks for calling.</Say>'));
  s.app.on('/about', xml('<Say>Connecting you now.</Say>'));
  s.app.on('/after-dial', xml('<Say>Back to you.</Say>'));
  const queued = (call: SimulatedCall) => until('the caller waits in line', 10_000, () => said(call, 'Please wait.') >= 1, 10);
  return { d, s, queued };
}

t.test('<Dial><Queue url> takes the waiting caller: the caller hears the url document alone, then both talk; each document goes on', async (t) => {
  const { d, s, queued } = await setup(t);
  s.app.on('/agent', xml('<Dial action="/after-dial"><Queue url="/about">support</Queue></Dial>'));
  const caller = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await queued(caller);
  const agent = d.h.engine.simulateInbound({ from: AGENT, to: AGENT_LINE });
  await until('both in the caller\'s room', 10_000, () => inRoom(agent) && said(caller, 'Connecting you now.') === 1, 10);
  t.equal(said(agent, 'Connecting you now.'), 0, 'the url document reached the caller alone');
  caller.hangup();
  await Promise.all([caller.ended, agent.ended]);
  t.match(s.app.requests.find((r) => r.path === '/after-dial')?.json, { dial_call_status: 'completed', dial_call_sid: /^CA/, queue_sid: /^QU/, queue_time: Number });
  t.equal(said(agent, 'Back to you.'), 1, 'the dialling call went on with its action');
  t.match(s.app.requests.find((r) => r.path === '/about' && r.method === 'POST')?.json, { queue_sid: /^QU/, dequeuing_call_sid: /^CA/ });
  const queue = (await d.h.store.queues.find(s.accountId, 'support'))!;
  t.match(Object.fromEntries(d.h.app.callServices.acd.stats.entries())[queue.sid], { offered: 1, answered: 1, abandoned: 0 }, 'counted as an offer answered');
});

t.test('an empty queue: the Dial waits for the next caller, or gives up at its timeout; no such queue fails it', async (t) => {
  const { d, s, queued } = await setup(t);
  const created = await v1(d, 'POST', '/v1/queues', { friendly_name: 'support' });
  t.equal(created.status, 201, 'the queue exists, empty');
  s.app.on('/agent', xml('<Dial action="/after-dial" timeout="600"><Queue>support</Queue></Dial>'));
  const agent = d.h.engine.simulateInbound({ from: AGENT, to: AGENT_LINE });
  const dialling = async () => {
    const row = await d.h.store.sql.one<{ sid: string }>('SELECT sid FROM calls WHERE account_id = ? AND from_addr = ? ORDER BY created_at DESC LIMIT 1', [s.accountId, AGENT]);
    return row ? (await d.h.store.calls.timeline(row.sid)).some((e) => e.kind === 'verb' && e.detail.verb === 'dial') : false;
  };
  await until('the dialler waits on the empty queue', 10_000, dialling, 10);
  const caller = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await queued(caller);
  await until('the waiting dialler took the caller', 10_000, () => inRoom(agent), 10);
  agent.hangup();
  await Promise.all([caller.ended, agent.ended]);
  t.match(s.app.requests.find((r) => r.path === '/after-wait')?.json, { queue_result: 'bridged' }, 'the caller\'s Enqueue went on, bridged');
  t.equal(said(caller, 'Thanks for calling.'), 1);

  s.app.on('/agent', xml('<Dial action="/after-dial" timeout="5"><Queue>support</Queue></Dial>'));
  const alone = d.h.engine.simulateInbound({ from: AGENT, to: AGENT_LINE });
  await alone.ended;
  t.match(s.app.requests.filter((r) => r.path === '/after-dial').at(-1)?.json, { dial_call_status: 'no-answer', dial_call_sid: null });

  s.app.on('/agent', xml('<Dial action="/after-dial"><Queue>nobody-here</Queue></Dial>'));
  const missing = d.h.engine.simulateInbound({ from: AGENT, to: AGENT_LINE });
  await missing.ended;
  t.match(s.app.requests.filter((r) => r.path === '/after-dial').at(-1)?.json, { dial_call_status: 'failed', queue_sid: null });
});
