import t from 'tap';
import { FakeClock } from '../../src/clock.js';
import { verify } from '../../src/net/index.js';
import { BACKOFF_CAP_MS, BACKOFF_JITTER, retryDelayMs } from '../../src/events/backoff.js';
import { startPreviewHarness, type PreviewHarness } from '../http/preview/helpers.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import type { AttemptOutcome } from '../../src/events/delivery-worker.js';

const callStart = (accountId: number, callSid = 'CA1') =>
  ({ type: 'call-start' as const, accountId, callSid, data: { from: '+15550100001', to: '+15550100002', direction: 'inbound' } });

const count = async (h: PreviewHarness, table: string) => (await h.store.sql.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;

/** Resolves with the next attempt the worker finishes. */
const nextAttempt = (h: PreviewHarness) => new Promise<AttemptOutcome>((resolve) => {
  const off = h.app.eventSystem.worker.onAttempt((o) => { off(); resolve(o); });
});

t.test('backoff schedule: 30 s doubling, capped at 1 h, ±20 % jitter', async (t) => {
  t.same([1, 2, 3, 4, 5, 6, 8, 20].map((n) => retryDelayMs(n, () => 0.5)), [30_000, 60_000, 120_000, 240_000, 480_000, 960_000, 3_600_000, 3_600_000]);
  t.equal(retryDelayMs(1, () => 0), Math.round(30_000 * (1 - BACKOFF_JITTER)));
  t.ok(retryDelayMs(1, () => 0.999999) <= 30_000 * (1 + BACKOFF_JITTER));
});

t.test('a receiver verifies a real signed delivery; custom headers merged; redirects not followed', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const receiver = await startWebhookApp(t);
  receiver.on('/hook', { status: 200, body: '{}' });
  const sub = (await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call-start', target_url: `${receiver.url}/hook`, headers: { 'X-Tenant': 'acme' } } })).body;
  const first = nextAttempt(h);
  await h.app.eventSystem.events.emit(callStart(a.id));
  const req = await receiver.waitFor('/hook');
  await first;
  t.same(verify(sub.secret, req.body, req.headers['x-service-signature'], Math.floor(Date.now() / 1000)), { ok: true });
  t.same(verify('whsec_wrong', req.body, req.headers['x-service-signature'], Math.floor(Date.now() / 1000)), { ok: false, reason: 'mismatch' });
  t.equal(req.headers['x-service-event'], 'call-start');
  t.equal(req.headers['x-tenant'], 'acme');
  t.match(req.headers['content-type'], /^application\/json/);
  t.match(req.json, { event_type: 'call-start', event_sid: /^EV/, subscription_sid: sub.sid, occurred_at: String, call_sid: 'CA1', data: { from: '+15550100001', to: '+15550100002', direction: 'inbound' } });

  receiver.on('/hook', { status: 302, body: '', type: 'text/plain' });
  const redirected = nextAttempt(h);
  await h.app.eventSystem.events.emit(callStart(a.id, 'CA2'));
  const outcome = await redirected;
  t.match(outcome, { status: 'pending', record: { statusCode: 302, error: /http_status/ } });
  t.equal(receiver.requests.length, 2, 'the 302 was not followed');
});

t.test('payload template reshapes the delivered body', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const receiver = await startWebhookApp(t);
  receiver.on('/t', { status: 200, body: '' });
  await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call-start', target_url: `${receiver.url}/t`, payload_template: '{"caller": {{data.from}}, "call": {{call_sid}}, "kind": "ringbase"}' } });
  await h.app.eventSystem.events.emit(callStart(a.id));
  t.same((await receiver.waitFor('/t')).json, { caller: '+15550100001', call: 'CA1', kind: 'ringbase' });
});

t.test('retries follow the schedule on a fake clock, then exhausted', async (t) => {
  const clock = new FakeClock(Date.now());
  const h = await startPreviewHarness(t, { clock });
  const a = await h.org();
  const receiver = await startWebhookApp(t);
  receiver.on('/fail', { status: 503, body: 'down' });
  const sub = (await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call-start', target_url: `${receiver.url}/fail`, max_retries: 3 } })).body;
  let attempt = nextAttempt(h);
  await h.app.eventSystem.events.emit(callStart(a.id));
  for (let n = 1; n <= 3; n++) {
    const o = await attempt;
    t.equal(o.record.attempt, n);
    t.equal(o.status, 'pending');
    const delay = o.nextAttemptAt! - clock.now();
    const nominal = 30_000 * 2 ** (n - 1);
    t.ok(delay >= nominal * 0.8 && delay <= nominal * 1.2, `retry ${n} after ${delay} ms (nominal ${nominal})`);
    await clock.advance(delay - 1);
    t.equal(receiver.requests.length, n, `no retry ${n} before it is due`);
    attempt = nextAttempt(h);
    await clock.advance(1);
  }
  const last = await attempt;
  t.match(last, { status: 'exhausted', nextAttemptAt: null, record: { attempt: 4, statusCode: 503 } });
  // Past the longest wait the schedule can give a retry (the cap, jittered up): no retry can come later. On
  // PostgreSQL the clock lets each timer's queries finish before it moves on, so a whole day of per-second sweeps
  // (one read each) costs about 34 s there against 3 s for this window, and would show nothing more.
  await clock.advance(BACKOFF_CAP_MS * (1 + BACKOFF_JITTER) + 1);
  t.equal(receiver.requests.length, 4, 'nothing after exhaustion');
  const log = (await h.v1('GET', `/v1/webhooks/${sub.sid}/deliveries`)).body.data[0];
  t.match(log, { status: 'exhausted', attempt_count: 4 });
  t.same(log.attempts.map((x: { status_code: number }) => x.status_code), [503, 503, 503, 503]);
});

t.test('paused subscriptions hold deliveries until resumed; delete drops pending ones', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const receiver = await startWebhookApp(t);
  receiver.on('/p', { status: 200, body: '' });
  const sub = (await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call-start', target_url: `${receiver.url}/p` } })).body;
  // Paused after the event was queued: the delivery waits.
  await h.store.sql.transaction(async (tx) => {
    await h.app.eventSystem.events.emit(callStart(a.id), tx);
    await tx.run("UPDATE webhook_subscriptions SET status = 'paused' WHERE sid = ?", [sub.sid]);
  });
  await h.clock.setTimeout(() => undefined, 0);
  t.equal((await h.app.eventSystem.outbox.claimDue(10)).length, 0, 'nothing claimable while paused');
  await h.app.eventSystem.events.emit(callStart(a.id, 'CA-while-paused'));
  const delivered = nextAttempt(h);
  await h.v1('POST', `/v1/webhooks/${sub.sid}`, { body: { status: 'active' } });
  t.equal((await delivered).status, 'delivered');
  t.equal(receiver.requests.length, 1, 'events emitted while paused are not queued');

  receiver.on('/p', { status: 500, body: '' });
  const failed = nextAttempt(h);
  await h.app.eventSystem.events.emit(callStart(a.id, 'CA3'));
  t.equal((await failed).status, 'pending');
  t.equal((await h.v1('DELETE', `/v1/webhooks/${sub.sid}`)).status, 204);
  t.equal(await count(h, 'webhook_deliveries'), 0, 'pending retries dropped');
});

t.test('emit joins the caller transaction: a rollback leaves nothing queued', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call-start', target_url: 'http://127.0.0.1:9/x' } });
  await t.rejects(h.store.sql.transaction(async (tx) => {
    await h.app.eventSystem.events.emit(callStart(a.id), tx);
    throw new Error('state change failed');
  }), /state change failed/);
  t.equal(await count(h, 'events'), 0);
  t.equal(await count(h, 'webhook_deliveries'), 0);
  const other = await h.org();
  await h.app.eventSystem.events.emit(callStart(other.id));
  t.equal(await count(h, 'events'), 0, 'no subscription, nothing stored');
});

t.test('sync mode: emitAndWait resolves at the 2xx, or at timeout_ms', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const receiver = await startWebhookApp(t);
  receiver.on('/sync', { status: 200, body: '' });
  receiver.on('/hang', 'hang');
  t.same(await h.app.eventSystem.events.emitAndWait(callStart(a.id)), { waited: false, delivered: false, statusCode: null }, 'no subscription');
  // A wait long enough for the claim, the attempt and its log on a busy machine (on PostgreSQL each a round trip):
  // 300 ms here sometimes ran out before the 2xx was logged. The short timeout is for the receiver that hangs.
  const sub = (await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call-start', target_url: `${receiver.url}/sync`, delivery_mode: 'sync', timeout_ms: 5000 } })).body;
  const res = await h.app.eventSystem.events.emitAndWait(callStart(a.id));
  t.same(res, { waited: true, delivered: true, statusCode: 200 });
  t.equal(receiver.requests.length, 1, 'exactly one delivery (not also by the worker)');
  await h.v1('POST', `/v1/webhooks/${sub.sid}`, { body: { target_url: `${receiver.url}/hang`, timeout_ms: 300 } });
  const started = Date.now();
  const slow = await h.app.eventSystem.events.emitAndWait(callStart(a.id));
  t.match(slow, { waited: true, delivered: false });
  t.ok(Date.now() - started < 2_000, 'bounded by timeout_ms');
});
