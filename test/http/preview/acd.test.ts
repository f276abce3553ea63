// /v1/queues and /v1/agents over HTTPS (through the trusted proxy): defaults, validation in the error envelope,
// unique queue names, pages, another account's resources answering 404, live queue figures, and the rules that
// keep state consistent (no deleting a queue callers wait in, or an agent on a call). Waiting callers and agents
// on calls are set in SQLite here (the call flows that set them are test/engine-suite/acd-suite.ts). Dispositions:
// validation, and another account's call refused.
import t from 'tap';
import { startPreviewHarness } from './helpers.js';
import { NumberService } from '../../../src/numbers/service.js';

async function setup(t: { teardown(fn: () => unknown): void }) {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const v1 = (method: string, path: string, body?: unknown, key = a.key) => h.v1(method, path, { key, ...(body === undefined ? {} : { body }) });
  return { h, a, v1 };
}

t.test('queues: create with defaults, unique names, validation, pages, update, members, delete', async (t) => {
  const { h, a, v1 } = await setup(t);
  const created = await v1('POST', '/v1/queues', { friendly_name: 'support' });
  t.equal(created.status, 201);
  t.match(created.body, {
    sid: /^QU[0-9a-f]{32}$/, friendly_name: 'support', max_wait_seconds: 600, ring_timeout_seconds: 20, wrap_up_seconds: 30, max_no_answer: 3,
    wait_url: null, size: 0, agents_available: 0, longest_wait_seconds: 0,
  });
  const sid = created.body.sid as string;

  const again = await v1('POST', '/v1/queues', { friendly_name: 'support' });
  t.equal(again.status, 409);
  t.match(again.body.error, { code: 'queue_exists', type: 'invalid_request_error' });
  for (const [body, param] of [
    [{}, 'friendly_name'], [{ friendly_name: '  ' }, 'friendly_name'], [{ friendly_name: 'x'.repeat(65) }, 'friendly_name'],
    [{ friendly_name: 'a', ring_timeout_seconds: 2 }, 'ring_timeout_seconds'], [{ friendly_name: 'a', max_no_answer: 0 }, 'max_no_answer'],
    [{ friendly_name: 'a', wait_url: 'http://169.254.169.254/latest' }, 'wait_url'], [{ friendly_name: 'a', colour: 'blue' }, 'colour'],
  ] as const) {
    const res = await v1('POST', '/v1/queues', body);
    t.equal(res.status, 400, `${JSON.stringify(body)} refused`);
    t.match(res.body.error, { param }, `names ${param}`);
  }

  for (const name of ['sales', 'billing']) await v1('POST', '/v1/queues', { friendly_name: name, wait_url: 'https://media.example.com/hold.mp3' });
  const page1 = await v1('GET', '/v1/queues?page_size=2');
  t.same(page1.body.data.map((q: { friendly_name: string }) => q.friendly_name), ['billing', 'sales'], 'newest first');
  t.equal(page1.body.has_more, true);
  const page2 = await v1('GET', `/v1/queues?page_size=2&cursor=${page1.body.next_cursor}`);
  t.same(page2.body.data.map((q: { friendly_name: string }) => q.friendly_name), ['support']);
  t.equal(page2.body.next_cursor, null);

  const renamed = await v1('POST', `/v1/queues/${sid}`, { ring_timeout_seconds: 15, friendly_name: 'sales' });
  t.equal(renamed.status, 409, 'a rename onto another queue\'s name is refused');
  const updated = await v1('POST', `/v1/queues/${sid}`, { ring_timeout_seconds: 15 });
  t.match(updated.body, { sid, friendly_name: 'support', ring_timeout_seconds: 15, max_wait_seconds: 600 });

  const other = await h.account();
  t.equal((await v1('GET', `/v1/queues/${sid}`, undefined, other.key)).status, 404, "another account's queue does not exist for it");

  // Two callers waiting, 48 s and 7 s (what the routing engine records when a call enters the queue).
  const now = h.clock.now();
  const queueId = (await h.store.queues.getForAccount(a.id, sid))!.id;
  const wait = (callSid: string, at: number) => h.store.sql.run('INSERT INTO acd_members (call_sid, queue_id, enqueued_at) VALUES (?, ?, ?)', [callSid, queueId, at]);
  await wait('CA0000000000000000000000000000000a', now - 48_000);
  await wait('CA0000000000000000000000000000000b', now - 7_000);
  t.match((await v1('GET', `/v1/queues/${sid}`)).body, { size: 2, longest_wait_seconds: 48 });
  const members = await v1('GET', `/v1/queues/${sid}/members`);
  t.match(members.body, { data: [{ call_sid: /a$/, position: 1, wait_seconds: 48 }, { call_sid: /b$/, position: 2, wait_seconds: 7 }], has_more: false });
  const busy = await v1('DELETE', `/v1/queues/${sid}`);
  t.equal(busy.status, 409);
  t.match(busy.body.error, { code: 'queue_not_empty' });
  await h.store.sql.run('DELETE FROM acd_members');
  t.equal((await v1('DELETE', `/v1/queues/${sid}`)).status, 204);
  t.equal((await v1('GET', `/v1/queues/${sid}`)).status, 404);
});

t.test('agents: a seat and queues of the account, offline at first, status and break, filters, delete', async (t) => {
  const { h, a, v1 } = await setup(t);
  const seat = (await h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'wss', label: 'Sam' } })).body as { id: number };
  const support = (await v1('POST', '/v1/queues', { friendly_name: 'support' })).body as { sid: string };
  const sales = (await v1('POST', '/v1/queues', { friendly_name: 'sales' })).body as { sid: string };

  const created = await v1('POST', '/v1/agents', { friendly_name: 'Sam Rivera', trunk_id: seat.id, queues: ['support', sales.sid] });
  t.equal(created.status, 201);
  t.match(created.body, { sid: /^AG[0-9a-f]{32}$/, friendly_name: 'Sam Rivera', trunk_id: seat.id, status: 'offline', break_reason: null, activity: 'idle', current_call_sid: null });
  t.same([...created.body.queues].sort(), [support.sid, sales.sid].sort(), 'queues by name or sid, listed by sid');
  const sid = created.body.sid as string;

  const foreignSeat = (await h.request('POST', '/api/partner/trunks', { key: (await h.account({ trunking: true })).key, body: { transport: 'wss' } })).body as { id: number };
  t.match((await v1('POST', '/v1/agents', { friendly_name: 'X', trunk_id: foreignSeat.id })).body.error, { code: 'parameter_invalid', param: 'trunk_id' }, "another account's trunk is no seat");
  t.match((await v1('POST', '/v1/agents', { friendly_name: 'X', trunk_id: seat.id, queues: ['nope'] })).body.error, { code: 'parameter_invalid', param: 'queues' });
  t.match((await v1('POST', '/v1/agents', { friendly_name: 'X', trunk_id: seat.id, queues: ['support', 'support'] })).body.error, { param: 'queues' }, 'a queue named twice');

  t.match((await v1('POST', `/v1/agents/${sid}`, { status: 'available' })).body, { status: 'available', break_reason: null });
  t.match((await v1('GET', `/v1/queues/${support.sid}`)).body, { agents_available: 1 }, 'an available, idle agent counts for its queues');
  t.match((await v1('POST', `/v1/agents/${sid}`, { status: 'break', break_reason: 'lunch' })).body, { status: 'break', break_reason: 'lunch' });
  t.match((await v1('GET', `/v1/queues/${support.sid}`)).body, { agents_available: 0 });
  t.match((await v1('POST', `/v1/agents/${sid}`, { status: 'available' })).body, { status: 'available', break_reason: null }, 'the reason goes with the break');
  t.equal((await v1('POST', `/v1/agents/${sid}`, { status: 'busy' })).status, 400, 'activity is not the agent\'s to set');

  const other = (await v1('POST', '/v1/agents', { friendly_name: 'Alex', trunk_id: seat.id, queues: ['sales'] })).body as { sid: string };
  const inSupport = await v1('GET', '/v1/agents?queue=support');
  t.same(inSupport.body.data.map((x: { sid: string }) => x.sid), [sid], 'filter by queue name');
  const offline = await v1('GET', '/v1/agents?status=offline');
  t.same(offline.body.data.map((x: { sid: string }) => x.sid), [other.sid], 'filter by status');
  t.match((await v1('GET', '/v1/agents?queue=nope')).body.error, { param: 'queue' });
  t.match((await v1('POST', `/v1/agents/${sid}`, { queues: [] })).body, { queues: [] }, 'queues replaced whole');

  await h.store.sql.run("UPDATE acd_agents SET activity = 'busy', current_call_sid = 'CA0000000000000000000000000000000c' WHERE sid = ?", [sid]);
  const onCall = await v1('DELETE', `/v1/agents/${sid}`);
  t.equal(onCall.status, 409);
  t.match(onCall.body.error, { code: 'agent_on_call' });
  t.equal((await v1('DELETE', `/v1/agents/${other.sid}`)).status, 204);
  t.equal((await v1('GET', `/v1/agents/${other.sid}`)).status, 404);
});

t.test('dispositions: set on a call of the account, listed per call; bad input named in the envelope', async (t) => {
  const { h, a, v1 } = await setup(t);
  const sid = `CA${'ab'.repeat(16)}`;
  await h.store.calls.create({ sid, accountId: a.id, direction: 'inbound', from: '+15550100001', to: '+15550100002', status: 'completed' });
  const set = await v1('POST', '/v1/dispositions', { call_sid: sid, disposition: ' sale ', notes: 'two seats' });
  t.equal(set.status, 201, JSON.stringify(set.body));
  t.match(set.body, { sid: /^DP[0-9a-f]{32}$/, call_sid: sid, disposition: 'sale', notes: 'two seats', agent_sid: null });
  await v1('POST', '/v1/dispositions', { call_sid: sid, disposition: 'callback' });
  const list = await v1('GET', `/v1/dispositions?call_sid=${sid}`);
  t.same(list.body.data.map((d: { disposition: string }) => d.disposition), ['sale', 'callback'], 'oldest first');
  for (const [body, param] of [
    [{ disposition: 'sale' }, 'call_sid'], [{ call_sid: 'CA1', disposition: 'sale' }, 'call_sid'],
    [{ call_sid: `CA${'cd'.repeat(16)}`, disposition: 'sale' }, 'call_sid'], [{ call_sid: sid, disposition: 'x'.repeat(65) }, 'disposition'],
    [{ call_sid: sid, disposition: 'a\nb' }, 'disposition'], [{ call_sid: sid, disposition: 'sale', notes: 'n'.repeat(1001) }, 'notes'],
  ] as const) {
    const res = await v1('POST', '/v1/dispositions', body);
    t.equal(res.status, 400, `${JSON.stringify(body).slice(0, 80)} refused`);
    t.match(res.body.error, { param }, `names ${param}`);
  }
  const other = await h.account();
  t.equal((await v1('POST', '/v1/dispositions', { call_sid: sid, disposition: 'sale' }, other.key)).status, 400, "another account's call is not found");
});

t.test('callbacks: scheduled with a queue and an account number, validated, listed, canceled only while scheduled', async (t) => {
  const { h, a, v1 } = await setup(t);
  await v1('POST', '/v1/queues', { friendly_name: 'callbacks' });
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add('+15550100002', a.id, {});
  const at = (ms: number) => new Date(h.clock.now() + ms).toISOString();
  const good = { queue: 'callbacks', to: '+15550100003', from: '+15550100002', due_at: at(3_600_000), attributes: { name: 'Ada' } };
  const made = await v1('POST', '/v1/callbacks', good);
  t.equal(made.status, 201, JSON.stringify(made.body));
  t.match(made.body, { sid: /^CB[0-9a-f]{32}$/, status: 'scheduled', attempts: 0, attributes: { name: 'Ada' }, due_at: good.due_at, call_sid: null });
  for (const [change, param] of [
    [{ queue: 'nope' }, 'queue'], [{ to: '5550100003' }, 'to'], [{ from: '+15559999999' }, 'from'], [{ due_at: 'tomorrow' }, 'due_at'],
    [{ due_at: '2026-12-01T09:30:00' }, 'due_at'], [{ due_at: at(-60_000) }, 'due_at'], [{ due_at: at(91 * 24 * 3_600_000) }, 'due_at'],
    [{ attributes: { n: 'x'.repeat(1025) } }, 'attributes'], [{ colour: 'blue' }, 'colour'],
  ] as const) {
    const res = await v1('POST', '/v1/callbacks', { ...good, ...change });
    t.equal(res.status, 400, `${JSON.stringify(change).slice(0, 60)} refused`);
    t.match(res.body.error, { param }, `names ${param}`);
  }
  t.equal((await v1('GET', '/v1/callbacks?status=scheduled')).body.data.length, 1);
  t.equal((await v1('GET', `/v1/callbacks/${made.body.sid}`, undefined, (await h.account()).key)).status, 404, "another account's callback");
  const queueSid = made.body.queue_sid as string;
  const busy = await v1('DELETE', `/v1/queues/${queueSid}`);
  t.equal(busy.status, 409, 'a queue with a scheduled callback is not deleted');
  t.match(busy.body.error, { code: 'queue_not_empty' });
  const canceled = await v1('DELETE', `/v1/callbacks/${made.body.sid}`);
  t.match(canceled.body, { status: 'canceled' });
  t.equal((await v1('DELETE', `/v1/queues/${queueSid}`)).status, 204, 'once it is canceled the queue goes');
  t.match((await v1('GET', `/v1/callbacks/${made.body.sid}`)).body, { status: 'canceled', queue_sid: null }, 'the callback keeps its history');
  const again = await v1('DELETE', `/v1/callbacks/${made.body.sid}`);
  t.equal(again.status, 409, 'canceled once');
  t.match(again.body.error, { code: 'callback_not_scheduled' });
});

t.test('agents need trunk access, as the trunk API: without it, 403 trunking_disabled on create and on a new seat', async (t) => {
  const { h, a, v1 } = await setup(t);
  const seat = (await h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'wss' } })).body as { id: number };
  const agent = (await v1('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: seat.id })).body as { sid: string };
  await h.store.accounts.update(a.id, { trunking: false });
  const created = await v1('POST', '/v1/agents', { friendly_name: 'Alex', trunk_id: seat.id });
  t.equal(created.status, 403);
  t.match(created.body.error, { code: 'trunking_disabled', type: 'authentication_error', message: /Trunk access is not enabled/ });
  const moved = await v1('POST', `/v1/agents/${agent.sid}`, { trunk_id: seat.id });
  t.equal(moved.status, 403);
  t.match(moved.body.error, { code: 'trunking_disabled' });
  t.equal((await v1('GET', '/v1/agents')).body.data.length, 1, 'no agent created');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: a.key })).status, 403, 'the same answer as the trunk API');
});
