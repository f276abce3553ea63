// Two control planes (two apps, each with its own store and HTTP server) on one PostgreSQL database share the limits
// a single process keeps in memory on SQLite: the calls-per-second cap, failed API keys per address, sign-in
// delays per (email, address) and the preview root's requests per key. Runs on PostgreSQL whichever half of the suite runs it (one skipped test without it).
import t from 'tap';
import { FakeClock } from '../../src/clock.js';
import { NumberService } from '../../src/numbers/service.js';
import { startTwoNodes } from '../helpers/two-nodes.js';
import { DashboardClient } from '../dashboard/client.js';

const DID = '+15550001000';
const call = { from: DID, to: '+15550004444', markup: '<Response><Hangup/></Response>' };
const WRONG = `sk_live_${'A'.repeat(43)}`;

t.test('two control planes on one PostgreSQL database: one CPS cap, one failed-key count, one sign-in delay, one preview window', async (t) => {
  const clock = new FakeClock(Date.now());
  const nodes = await startTwoNodes(t, {
    clock,
    env: {
      RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_AUTH_FAIL_LIMIT: '3', RINGBASE_AUTH_FAIL_WINDOW_S: '60',
      RINGBASE_PREVIEW_RATE_LIMIT: '3', RINGBASE_PREVIEW_RATE_WINDOW: '60', RINGBASE_TRUSTED_PROXIES: '127.0.0.1',
    },
  });
  if (!nodes) return;
  const [a, b] = nodes;
  const account = await a.account();
  await new NumberService(a.store.numbers, { allowLocalTargets: true }).add(DID, account.id);
  await a.store.accounts.update(account.id, { cpsCap: 2 });

  const placed = [await a.request('POST', '/api/calls', { key: account.key, body: call }), await b.request('POST', '/api/calls', { key: account.key, body: call })];
  t.same(placed.map((r) => r.status), [201, 201], 'one call through each node');
  const third = [await a.request('POST', '/api/calls', { key: account.key, body: call }), await b.request('POST', '/api/calls', { key: account.key, body: call })];
  t.same(third.map((r) => r.status), [429, 429], 'cap 2: a third call is refused on either node');
  t.equal(third[1]!.body.code, 'calls_per_second_exceeded');
  await clock.advance(1000);
  t.equal((await b.request('POST', '/api/calls', { key: account.key, body: call })).status, 201, 'a new second, a new slot');

  const failures = [await a.request('GET', '/api/partner/trunks', { key: WRONG }), await b.request('GET', '/api/partner/trunks', { key: WRONG }),
    await a.request('GET', '/api/partner/trunks', { key: WRONG })];
  t.same(failures.map((r) => r.status), [401, 401, 401], 'three wrong keys from one address, on A, B, A');
  const fourth = await b.request('GET', '/api/partner/trunks', { key: WRONG });
  t.equal(fourth.status, 429, 'the fourth, on B, is throttled');
  t.equal(fourth.headers.get('retry-after'), '60');
  t.equal((await a.request('GET', '/api/partner/trunks', { key: WRONG })).status, 429, 'and on A');
  t.equal((await b.request('GET', '/api/partner/trunks', { key: account.key })).status, 200, 'the key in use from this address still works');
  const unseen = (await a.store.apiKeys.create(account.id)).key;
  t.equal((await b.request('GET', '/api/partner/trunks', { key: unseen })).status, 429, 'a key never used from here is not tried');

  const email = 'nobody@example.com';
  for (let i = 1; i <= 4; i++) {
    const page = await new DashboardClient((i % 2 ? a : b).url).signIn(email, 'wrong password!');
    t.match(page.text, /incorrect.<\/p>/, `sign-in failure ${i}, on ${i % 2 ? 'A' : 'B'}: no wait yet`);
  }
  const fifth = await new DashboardClient(a.url).signIn(email, 'wrong password!');
  t.match(fifth.text, /try again in 2 seconds/, 'the fifth failure counts the four on both nodes');
  t.equal((await new DashboardClient(b.url).signIn(email, 'wrong password!')).status, 429, 'and B makes the pair wait');

  // The preview root's window: 3 requests per key per 60 s, counted on whichever node they reach.
  const preview = (via: typeof a) => via.request('GET', '/v1/queues', { key: account.key, headers: { 'x-forwarded-proto': 'https' } });
  const counted = [await preview(a), await preview(b), await preview(a)];
  t.same(counted.map((r) => [r.status, r.headers.get('x-ratelimit-remaining')]), [[200, '2'], [200, '1'], [200, '0']],
    'preview limit 3: requests on A, B and A count in one window');
  const over = await preview(b);
  t.match(over, { status: 429, body: { error: { code: 'rate_limit_exceeded' } } }, 'the fourth, on B, is refused');
  t.ok(Number(over.headers.get('retry-after')) >= 1, `with Retry-After ${over.headers.get('retry-after')}`);
  t.equal((await preview(a)).status, 429, 'and on A');
  await clock.advance(60_000);
  t.match(await preview(b), { status: 200 }, 'the next window counts afresh');
});
