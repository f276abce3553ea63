// The callback outbox on a fake clock: signed form deliveries, order within a stream while another stream goes on,
// retries with backoff, exhaustion, and nothing queued by a transaction that rolled back.
import t, { type Test } from 'tap';
import { startHarness } from '../helpers/harness.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { FakeClock } from '../../src/clock.js';
import { verify } from '../../src/net/index.js';
import { CallbackOutbox } from '../../src/callbacks/worker.js';
import { CallbackStore } from '../../src/callbacks/store.js';

async function setup(t: Test) {
  const clock = new FakeClock(Date.now());
  const h = await startHarness(t, { clock, env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const { id } = h.account();
  const hooks = await startWebhookApp(t);
  const outbox = new CallbackOutbox({ store: new CallbackStore(h.store.db, clock), http: h.app.callServices.http, clock, log: h.app.callServices.log, random: () => 0.5 });
  outbox.start();
  t.teardown(() => outbox.stop());
  const status = (sid: string) => (h.store.db.prepare('SELECT status, attempt_count AS attempts FROM callback_outbox WHERE sid = ?').get(sid) as { status: string; attempts: number });
  return { clock, h, accountId: id, hooks, outbox, status };
}

t.test('a callback is a signed form POST', async (t) => {
  const { h, accountId, hooks, outbox, status } = await setup(t);
  hooks.on('/cb', { status: 204, body: '' });
  const sid = outbox.enqueue({ accountId, stream: 'CF1', url: `${hooks.url}/cb`, method: 'POST', fields: { StatusCallbackEvent: 'conference-start', SequenceNumber: '1' } });
  const req = await hooks.waitFor('/cb');
  t.same(Object.fromEntries(req.form), { StatusCallbackEvent: 'conference-start', SequenceNumber: '1' });
  t.same(verify(h.app.signingSecrets.get(accountId), req.body, req.headers['x-service-signature'], Math.floor(Date.now() / 1000)), { ok: true }, 'signed with the account secret');
  await until('recorded as delivered', 2_000, () => status(sid).status === 'delivered');
  t.pass('delivered');
});

t.test('a stream waits for its earlier callback; other streams go on; retries back off; a failing target is given up', async (t) => {
  const { clock, accountId, hooks, outbox, status } = await setup(t);
  let failFirst = true;
  hooks.on('/a', () => (failFirst ? ((failFirst = false), { status: 500, body: '' }) : { status: 200, body: '' }));
  hooks.on('/b', { status: 200, body: '' });
  hooks.on('/down', { status: 503, body: '' });
  const a1 = outbox.enqueue({ accountId, stream: 'A', url: `${hooks.url}/a`, method: 'POST', fields: { n: 'a1' } });
  const a2 = outbox.enqueue({ accountId, stream: 'A', url: `${hooks.url}/a`, method: 'POST', fields: { n: 'a2' } });
  const b1 = outbox.enqueue({ accountId, stream: 'B', url: `${hooks.url}/b`, method: 'POST', fields: { n: 'b1' } });
  const down = outbox.enqueue({ accountId, stream: 'C', url: `${hooks.url}/down`, method: 'POST', fields: { n: 'c1' } });
  await until('first attempts', 2_000, () => status(a1).attempts === 1 && status(b1).status === 'delivered' && status(down).attempts === 1);
  t.equal(status(a1).status, 'pending', 'a1 failed and waits for its retry');
  t.equal(status(a2).attempts, 0, 'a2 waits behind a1');
  t.equal(status(b1).status, 'delivered', 'stream B was not held up');
  await clock.advance(29_000);
  t.equal(status(a1).attempts, 1, 'no retry before the backoff (30 s)');
  await clock.advance(2_000);
  await until('a1 then a2 delivered', 2_000, () => status(a2).status === 'delivered');
  t.same(hooks.requests.filter((r) => r.path === '/a').map((r) => r.form.get('n')), ['a1', 'a1', 'a2'], 'in order, a1 retried first');
  for (let i = 0; i < 6; i++) await clock.advance(20 * 60_000);
  await until('the failing target given up', 2_000, () => status(down).status === 'exhausted');
  t.equal(hooks.requests.filter((r) => r.path === '/down').length, 5, 'five attempts, then exhausted');
});

t.test('a callback queued in a transaction that rolls back never exists', async (t) => {
  const { h, accountId, hooks, outbox } = await setup(t);
  t.throws(() => h.store.db.transaction(() => {
    outbox.enqueue({ accountId, stream: 'X', url: `${hooks.url}/x`, method: 'POST', fields: {} });
    throw new Error('the change failed');
  })());
  t.equal((h.store.db.prepare('SELECT COUNT(*) AS n FROM callback_outbox').get() as { n: number }).n, 0);
});
