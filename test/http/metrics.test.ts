// /metrics: open to anyone with platform-wide figures only; the per-account series (queue sids, waiting callers,
// agents by activity) need the operator token or RINGBASE_METRICS_TOKEN; a wrong token reads the open figures and
// counts against the address in the auth throttle.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { operatorToken } from '../../src/operator-token.js';

const METRICS_TOKEN = 'm'.repeat(40);

t.test('per-account series only with the operator or metrics token; the open endpoint shows aggregates', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_METRICS_TOKEN: METRICS_TOKEN, RINGBASE_TRUSTED_PROXIES: '127.0.0.1' } });
  const a = await h.account();
  const queue = await h.request('POST', '/v1/queues', { key: a.key, body: { friendly_name: 'support' }, headers: { 'x-forwarded-proto': 'https' } });
  const sid = queue.body.sid as string;
  await h.store.sql.run('INSERT INTO acd_members (call_sid, queue_id, enqueued_at) VALUES (?, ?, ?)', [`CA${'a'.repeat(32)}`, (await h.store.queues.getForAccount(a.id, sid))!.id, h.clock.now()]);
  const scrape = (authorization?: string) => h.request('GET', '/metrics', { key: null, headers: authorization ? { authorization } : {} });

  for (const [who, auth] of [['no token', undefined], ["an account's API key", `Bearer ${a.key}`], ['a wrong token', `Bearer ${'x'.repeat(40)}`]] as const) {
    const open = await scrape(auth);
    t.equal(open.status, 200, who);
    t.notMatch(open.text, sid, `${who}: no queue sid`);
    t.notMatch(open.text, /queue="/, `${who}: no per-queue series`);
    t.match(open.text, /^ringbase_acd_callers_waiting 1$/m, `${who}: the platform-wide total`);
    t.match(open.text, /ringbase_http_requests_total/, `${who}: HTTP and process figures`);
  }
  for (const [who, token] of [['operator token', operatorToken(h.dataDir, false)!], ['metrics token', METRICS_TOKEN]] as const) {
    const full = await scrape(`Bearer ${token}`);
    t.equal(full.status, 200);
    t.match(full.text, `ringbase_acd_queue_waiting{queue="${sid}"} 1`, `${who}: per-queue series`);
    t.match(full.text, /^ringbase_acd_callers_waiting 1$/m, `${who}: and the open ones`);
  }
});

t.test('wrong tokens are throttled like API keys: 20 failures, then 429 for anything but a token that worked there', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_METRICS_TOKEN: METRICS_TOKEN } });
  const operator = `Bearer ${operatorToken(h.dataDir, false)!}`;
  t.equal((await h.request('GET', '/metrics', { key: null, headers: { authorization: `Bearer ${METRICS_TOKEN}` } })).status, 200, 'the metrics token used once from here');
  const statuses: number[] = [];
  for (let i = 0; i < 25; i++) statuses.push((await h.request('GET', '/metrics', { key: null, headers: { authorization: `Bearer guess-${i}` } })).status);
  t.same(statuses, [...Array(20).fill(200), ...Array(5).fill(429)], '20 wrong guesses read the open figures, then 429');
  const known = await h.request('GET', '/metrics', { key: null, headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  t.equal(known.status, 200, 'a token that worked from this address keeps working');
  const fresh = await h.request('GET', '/metrics', { key: null, headers: { authorization: operator } });
  t.equal(fresh.status, 429, 'a token not used from here, even the right one, waits out the window');
  t.ok(Number(fresh.headers.get('retry-after')) >= 1);
});

t.test('RINGBASE_METRICS_TOKEN must be long enough to be unguessable', async (t) => {
  await t.rejects(startHarness(t, { env: { RINGBASE_METRICS_TOKEN: 'short' } }), /RINGBASE_METRICS_TOKEN must be 32 to 256 printable characters/);
});
