import t from 'tap';
import { startHarness } from '../../helpers/harness.js';
import { NumberService } from '../../../src/numbers/service.js';
import type { FakeClock } from '../../../src/clock.js';

const DID = '+15550001000';
const body = { from: DID, to: '+15550004444', markup: '<Response><Hangup/></Response>' };

async function setup(t: Parameters<typeof startHarness>[0], opts: { fakeClock?: boolean } = {}) {
  const h = await startHarness(t, { ...opts, env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const a = await h.account();
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, a.id);
  return { h, a };
}

t.test('calls-per-second cap: a burst gets exactly the cap, the rest 429 with Retry-After and X-RateLimit-* (fake clock)', async (t) => {
  const { h, a } = await setup(t, { fakeClock: true });
  await h.store.accounts.update(a.id, { cpsCap: 3 });
  const burstAt = h.clock.now();
  const burst = await Promise.all(Array.from({ length: 10 }, () => h.request('POST', '/api/calls', { body })));
  t.equal(burst.filter((r) => r.status === 201).length, 3, 'the cap');
  const refused = burst.filter((r) => r.status === 429);
  t.equal(refused.length, 7);
  // The spec's "Limits" headers: the account's cap, nothing left, and the epoch second the oldest call leaves the window.
  const reset = String(Math.ceil((burstAt + 1000) / 1000));
  for (const r of refused) {
    t.equal(r.headers.get('retry-after'), '1');
    t.equal(r.headers.get('x-ratelimit-limit'), '3');
    t.equal(r.headers.get('x-ratelimit-remaining'), '0');
    t.equal(r.headers.get('x-ratelimit-reset'), reset);
    t.equal(r.body.code, 'calls_per_second_exceeded');
  }
  await (h.clock as FakeClock).advance(999);
  const late = await h.request('POST', '/api/calls', { body });
  t.equal(late.status, 429, 'still inside the same second');
  t.equal(late.headers.get('x-ratelimit-reset'), reset, 'the same slot frees, so the same reset');
  t.equal(late.headers.get('retry-after'), '1', 'never less than a second');
  await (h.clock as FakeClock).advance(1);
  t.equal((await h.request('POST', '/api/calls', { body })).status, 201, 'a new second, a new slot');
  const other = await h.account();
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add('+15550002000', other.id);
  t.equal((await h.request('POST', '/api/calls', { key: other.key, body: { ...body, from: '+15550002000' } })).status, 201, 'caps are per account');
});

t.test('no one-second window ever holds more than the cap (real clock, bounded burst)', async (t) => {
  const { h, a } = await setup(t);
  await h.store.accounts.update(a.id, { cpsCap: 4 });
  const accepted: number[] = [];
  const others = new Set<number>();
  const deadline = Date.now() + 2_500;
  while (Date.now() < deadline && accepted.length < 40) {
    const res = await h.request('POST', '/api/calls', { body });
    if (res.status === 201) accepted.push(Date.parse(res.body.created_at));
    else others.add(res.status);
  }
  t.same([...others], [429], 'every refusal is a 429');
  t.ok(accepted.length >= 8, `${accepted.length} accepted over ~2.5 s`);
  const worst = Math.max(...accepted.map((start) => accepted.filter((x) => x >= start && x < start + 1000).length));
  t.ok(worst <= 4, `busiest one-second window held ${worst} placements`);
});

t.test('an engine that cannot place the call: 500 saying why', async (t) => {
  const { h } = await setup(t);
  await h.engine.stop();
  const res = await h.request('POST', '/api/calls', { body });
  t.equal(res.status, 500);
  t.same(res.body, { error: 'The call could not be placed: the call engine is unavailable (sandbox engine stopped).' });
  t.equal((await h.store.sql.one<{ n: number }>('SELECT count(*) AS n FROM calls'))?.n, 0, 'nothing stored');
});

t.test('list calls: newest first, filters, cursor pages; 404 for unknown and foreign calls', async (t) => {
  const { h } = await setup(t);
  await h.store.accounts.update(1, { cpsCap: 100 });
  const made: string[] = [];
  for (let i = 0; i < 5; i++) made.push((await h.request('POST', '/api/calls', { body: { ...body, to: `+1555000900${i}` } })).body.sid);
  await h.app.calls.settled();
  const page1 = await h.request('GET', '/api/calls?page_size=2');
  t.equal(page1.status, 200);
  t.same(page1.body.data.map((c: any) => c.sid), made.slice(-2).reverse(), 'newest first');
  const page2 = await h.request('GET', `/api/calls?page_size=2&page_token=${page1.body.next_page_token}`);
  const page3 = await h.request('GET', `/api/calls?page_size=2&page_token=${page2.body.next_page_token}`);
  t.same([...page1.body.data, ...page2.body.data, ...page3.body.data].map((c: any) => c.sid), [...made].reverse(), 'pages cover every call once');
  t.equal(page3.body.next_page_token, null);
  const filtered = await h.request('GET', '/api/calls?to=%2B15550009003');
  t.same(filtered.body.data.map((c: any) => c.sid), [made[3]]);
  const byStatus = await h.request('GET', '/api/calls?status=completed&direction=outbound-api');
  t.equal(byStatus.body.data.length, 5);
  const bad = await h.request('GET', '/api/calls?status=exploded&page_size=1000');
  t.equal(bad.status, 422);
  t.same(Object.keys(bad.body.errors).sort(), ['page_size', 'status']);
  t.same((await h.request('GET', '/api/calls/CAnope')).body, { message: 'Call not found.' });
  const other = await h.account();
  t.equal((await h.request('GET', `/api/calls/${made[0]}`, { key: other.key })).status, 404);
  t.same((await h.request('GET', '/api/calls', { key: other.key })).body.data, []);
  t.equal((await h.request('GET', '/api/calls')).status, 200);
  t.equal((await h.request('GET', '/api/calls', { key: null })).status, 401, 'the calls API needs a key');
});

t.test('the calls and recordings endpoints are in the OpenAPI document', async (t) => {
  const { h } = await setup(t);
  const spec = (await h.request('GET', '/openapi.json')).body;
  for (const path of ['/api/calls', '/api/calls/{callSid}', '/api/calls/{callSid}/recordings', '/api/calls/{callSid}/recordings/{recordingSid}', '/api/recordings/{recordingSid}']) {
    t.ok(spec.paths[path], path);
  }
  t.ok(spec.paths['/api/calls'].post.requestBody);
});
