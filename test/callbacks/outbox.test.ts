// The callback outbox on a fake clock: signed form deliveries (POST body, GET query), order within a stream while
// another stream goes on (a failing and a slow receiver), retries with backoff, exhaustion, nothing queued by a
// transaction that rolled back, and finished rows pruned after the retention period.
import t, { type Test } from 'tap';
import { startHarness } from '../helpers/harness.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { FakeClock } from '../../src/clock.js';
import { verify } from '../../src/net/index.js';
import { CallbackOutbox } from '../../src/callbacks/worker.js';
import { CallbackStore } from '../../src/callbacks/store.js';

const DAY = 86_400_000;

async function setup(t: Test) {
  const clock = new FakeClock(Date.now());
  const h = await startHarness(t, { clock, env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const { id } = await h.account();
  const hooks = await startWebhookApp(t);
  // The app's own worker is stopped: this one pins the jitter, so the retry schedule is exact.
  await h.app.callbacks.stop();
  const worker = (at: FakeClock) => new CallbackOutbox({ store: new CallbackStore(h.store.sql, at), http: h.app.callServices.http, clock: at, log: h.app.callServices.log, random: () => 0.5 });
  const outbox = worker(clock);
  outbox.start();
  t.teardown(() => outbox.stop());
  const status = (sid: string) => h.store.sql.one<{ status: string; attempts: number }>('SELECT status, attempt_count AS attempts FROM callback_outbox WHERE sid = ?', [sid]);
  return { clock, h, accountId: id, hooks, outbox, worker, status };
}

t.test('a callback is a signed form POST', async (t) => {
  const { h, accountId, hooks, outbox, status } = await setup(t);
  hooks.on('/cb', { status: 204, body: '' });
  const sid = await outbox.enqueue({ accountId, stream: 'CF1', url: `${hooks.url}/cb`, method: 'POST', fields: { StatusCallbackEvent: 'conference-start', SequenceNumber: '1' } });
  const req = await hooks.waitFor('/cb');
  t.same(Object.fromEntries(req.form), { StatusCallbackEvent: 'conference-start', SequenceNumber: '1' });
  t.same(verify(await h.app.signingSecrets.get(accountId), req.body, req.headers['x-service-signature'], Math.floor(Date.now() / 1000)), { ok: true }, 'signed with the account secret');
  await until('recorded as delivered', 2_000, async () => (await status(sid))?.status === 'delivered');
  t.pass('delivered');
});

t.test('a GET callback carries its fields in the query string, signed over it', async (t) => {
  const { h, accountId, hooks, outbox } = await setup(t);
  hooks.on('/get', { status: 200, body: '' });
  await outbox.enqueue({ accountId, stream: 'CF1', url: `${hooks.url}/get?keep=1`, method: 'GET', fields: { StatusCallbackEvent: 'participant-join', FriendlyName: 'a b&c' } });
  const req = await hooks.waitFor('/get');
  t.equal(req.method, 'GET');
  t.same(Object.fromEntries(req.query), { keep: '1', StatusCallbackEvent: 'participant-join', FriendlyName: 'a b&c' });
  const signed = new URLSearchParams({ StatusCallbackEvent: 'participant-join', FriendlyName: 'a b&c' }).toString();
  t.ok(verify(await h.app.signingSecrets.get(accountId), signed, req.headers['x-service-signature'], Math.floor(Date.now() / 1000)).ok, 'signature covers the fields');
});

t.test('a slow receiver holds its stream: the next callback goes only after the earlier one is answered', async (t) => {
  const { clock, accountId, hooks, outbox, status } = await setup(t);
  let answerFirst!: () => void;
  const firstAnswered = new Promise<void>((resolve) => { answerFirst = resolve; });
  t.teardown(answerFirst);
  hooks.on('/slow', async (req) => {
    if (req.form.get('n') === '1') await firstAnswered;
    return { status: 200, body: '' };
  });
  hooks.on('/other', { status: 200, body: '' });
  const first = await outbox.enqueue({ accountId, stream: 'CF1', url: `${hooks.url}/slow`, method: 'POST', fields: { n: '1' } });
  const second = await outbox.enqueue({ accountId, stream: 'CF1', url: `${hooks.url}/slow`, method: 'POST', fields: { n: '2' } });
  const other = await outbox.enqueue({ accountId, stream: 'CF2', url: `${hooks.url}/other`, method: 'POST', fields: { n: '1' } });
  await hooks.waitFor('/slow');
  await until('the other stream delivered meanwhile', 2_000, async () => (await status(other))?.status === 'delivered');
  await clock.advance(5_000); // the worker's poll comes round while the first is still unanswered (lease: 7 s)
  t.equal(hooks.requests.filter((r) => r.path === '/slow').length, 1, 'only the first is sent');
  t.same((await status(second)), { status: 'pending', attempts: 0 }, 'the second waits, not even attempted');
  answerFirst();
  await until('both delivered', 2_000, async () => (await status(second))?.status === 'delivered');
  t.equal((await status(first))?.status, 'delivered');
  t.same(hooks.requests.filter((r) => r.path === '/slow').map((r) => r.form.get('n')), ['1', '2'], 'in order, each once');
});

t.test('a stream waits for its earlier callback; other streams go on; retries back off; a failing target is given up', async (t) => {
  const { clock, h, accountId, hooks, outbox, status } = await setup(t);
  let failFirst = true;
  hooks.on('/a', () => (failFirst ? ((failFirst = false), { status: 500, body: '' }) : { status: 200, body: '' }));
  hooks.on('/b', { status: 200, body: '' });
  hooks.on('/down', { status: 503, body: '' });
  const a1 = await outbox.enqueue({ accountId, stream: 'A', url: `${hooks.url}/a`, method: 'POST', fields: { n: 'a1' } });
  const a2 = await outbox.enqueue({ accountId, stream: 'A', url: `${hooks.url}/a`, method: 'POST', fields: { n: 'a2' } });
  const b1 = await outbox.enqueue({ accountId, stream: 'B', url: `${hooks.url}/b`, method: 'POST', fields: { n: 'b1' } });
  const down = await outbox.enqueue({ accountId, stream: 'C', url: `${hooks.url}/down`, method: 'POST', fields: { n: 'c1' } });
  await until('first attempts', 2_000, async () => (await status(a1))?.attempts === 1 && (await status(b1))?.status === 'delivered' && (await status(down))?.attempts === 1);
  t.equal((await status(a1))?.status, 'pending', 'a1 failed and waits for its retry');
  t.equal((await status(a2))?.attempts, 0, 'a2 waits behind a1');
  t.equal((await status(b1))?.status, 'delivered', 'stream B was not held up');
  await clock.advance(29_000);
  t.equal((await status(a1))?.attempts, 1, 'no retry before the backoff (30 s)');
  await clock.advance(2_000);
  await until('a1 then a2 delivered', 2_000, async () => (await status(a2))?.status === 'delivered');
  t.same(hooks.requests.filter((r) => r.path === '/a').map((r) => r.form.get('n')), ['a1', 'a1', 'a2'], 'in order, a1 retried first');
  for (let i = 0; i < 6; i++) await clock.advance(20 * 60_000);
  await until('the failing target given up', 2_000, async () => (await status(down))?.status === 'exhausted');
  t.equal(hooks.requests.filter((r) => r.path === '/down').length, 5, 'five attempts (30 s, 1, 2, 4 min apart), then exhausted');
  const row = await h.store.sql.one('SELECT last_status_code AS code, last_error AS error FROM callback_outbox WHERE sid = ?', [down]);
  t.same(row, { code: 503, error: 'the receiver answered 503' }, 'the last failure is kept');
});

t.test('a callback queued in a transaction that rolls back never exists', async (t) => {
  const { h, accountId, hooks, outbox } = await setup(t);
  let woken = 0;
  const wake = outbox.wake.bind(outbox);
  outbox.wake = () => { woken++; wake(); };
  await t.rejects(h.store.sql.transaction(async (tx) => {
    await outbox.enqueue({ accountId, stream: 'X', url: `${hooks.url}/x`, method: 'POST', fields: {} }, tx);
    throw new Error('the change failed');
  }), /the change failed/);
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM callback_outbox'))!.n, 0);
  t.equal(woken, 0, 'the worker is not woken for it');
});

t.test('delivered and exhausted callbacks are pruned 30 days after they finished; pending ones never', async (t) => {
  const { clock, h, accountId, hooks, outbox, worker, status } = await setup(t);
  hooks.on('/ok', { status: 200, body: '' });
  hooks.on('/down', { status: 500, body: '' });
  const delivered = await outbox.enqueue({ accountId, stream: 'A', url: `${hooks.url}/ok`, method: 'POST', fields: {} });
  const exhausted = await outbox.enqueue({ accountId, stream: 'B', url: `${hooks.url}/down`, method: 'POST', fields: {} });
  for (let i = 0; i < 10 && (await status(exhausted))?.status !== 'exhausted'; i++) await clock.advance(60_000);
  t.equal((await status(delivered))?.status, 'delivered');
  t.equal((await status(exhausted))?.status, 'exhausted');
  await outbox.stop();
  // Queued while no worker runs: stays pending however old it gets.
  const pending = await new CallbackStore(h.store.sql, clock).enqueue({ accountId, stream: 'C', url: `${hooks.url}/ok`, method: 'POST', fields: {} });
  // A worker starting later prunes at once (then hourly); stopped before it looks for work.
  const startAt = async (ms: number) => { const w = worker(new FakeClock(clock.now() + ms)); w.start(); await w.stop(); };
  await startAt(29 * DAY);
  t.ok((await status(delivered)) && (await status(exhausted)), 'kept for 29 days');
  await startAt(31 * DAY);
  t.equal((await status(delivered)), undefined, 'delivered row pruned');
  t.equal((await status(exhausted)), undefined, 'exhausted row pruned');
  t.same((await status(pending)), { status: 'pending', attempts: 0 }, 'pending row kept');
});
