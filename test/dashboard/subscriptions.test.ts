// Webhook subscriptions through dashboard forms (no HTTPS needed): the same rule, records and deliveries as /v1/webhooks.
import t from 'tap';
import { startPreviewHarness } from '../http/preview/helpers.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';
import { verify } from '../../src/net/index.js';
import { until } from '../helpers/waits.js';

t.test('create with the secret shown once, test event, pause/resume, redeliver, delete', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  const receiver = await startWebhookApp(t);
  receiver.on('/hook', { status: 500, body: 'down' });
  const list = '/dashboard/subscriptions';

  const refused = await c.submit(list, list, { event_type: 'hangup', target_url: `${receiver.url}/hook`, delivery_mode: 'async' });
  t.equal(refused.status, 422, 'the host is not on the allow-list yet');
  t.match(refused.text, /id="e-target_url">This address cannot be used: [^<]*allow-list/, 'said in words at the field');
  t.notMatch(refused.text, /target_url is/, 'no API field name in the message');
  const empty = await c.submit(list, list, { target_url: '' });
  t.match(empty.text, /id="e-event_type">Choose the event to deliver\./);
  t.match(empty.text, /id="e-target_url">Enter the address that receives the events/);
  t.match(empty.text, /id="e-delivery_mode">Choose how the event is delivered\./);

  await h.store.orgSettings.allowHost(a.id, '127.0.0.1');
  const created = await c.submit(list, list, { event_type: 'hangup', target_url: `${receiver.url}/hook`, delivery_mode: 'async' });
  t.equal(created.status, 201);
  const secret = /id="new-secret"><code>(whsec_[^<]+)</.exec(created.text)?.[1];
  t.ok(secret, 'the signing secret is shown');
  const sid = /href="\/dashboard\/subscriptions\/(WH[0-9a-f]{32})"/.exec(created.text)![1]!;
  t.notMatch((await c.get(list)).text, secret!, 'and never again');
  const again = await c.submit(list, list, { event_type: 'hangup', target_url: `${receiver.url}/other`, delivery_mode: 'sync' });
  t.match(again.text, /already has a subscription to hangup/);

  const page = `${list}/${sid}`;
  const subId = (await h.store.webhookSubscriptions.getForAccount(a.id, sid))!.id;
  // The receiver answers before the worker writes the attempt down: wait for the log, not the request.
  const attemptsLogged = (n: number) => until(`${n} attempts logged`, 5_000, async () =>
    (await h.app.eventSystem.outbox.listForSubscription(subId, { beforeId: null, limit: 10 })).flatMap((d) => d.attempts).length >= n);
  t.match((await c.submit(page, `${page}/test`)).location, /done=test-event-queued/);
  const first = await receiver.waitFor('/hook');
  const body = JSON.parse(first.body) as { event_type: string; subscription_sid: string; data: { test: boolean; disposition: string } };
  t.match(body, { event_type: 'hangup', subscription_sid: sid, data: { test: true, disposition: 'completed' } }, 'sample data, marked as a test');
  t.match(verify(secret!, first.body, first.headers['x-service-signature'], Math.floor(Date.now() / 1000)), { ok: true }, 'signed with the secret shown once');
  await attemptsLogged(1);
  const failed = await c.get(page);
  t.match(failed.text, /HTTP 500 in \d+ ms/, 'the delivery log shows the status code');

  t.match((await c.submit(page, `${page}/pause`)).location, /done=subscription-paused/);
  t.match((await c.get(page)).text, /id="subscription-status">Paused/);
  t.equal((await h.store.webhookSubscriptions.getForAccount(a.id, sid))!.status, 'paused');
  t.match((await c.submit(page, `${page}/resume`)).location, /done=subscription-resumed/);

  receiver.on('/hook', { status: 204, body: '' });
  const delivery = /data-delivery="(DL[0-9a-f]{32})"/.exec((await c.get(page)).text)![1]!;
  t.match((await c.submit(page, `${page}/deliveries/${delivery}/redeliver`)).location, /done=redelivery-queued/);
  const redelivered = await receiver.waitFor('/hook', 2);
  t.equal(JSON.parse(redelivered.body).event_sid, (body as unknown as { event_sid: string }).event_sid, 'the same event again');
  await attemptsLogged(2);
  const log = (await c.get(page)).text;
  t.match(log, /HTTP 204 in \d+ ms/, 'the redelivery is logged');
  t.match(log, /HTTP 500 in \d+ ms/, 'beside the failed delivery');
  t.equal((await c.submit(page, `${page}/deliveries/DL${'0'.repeat(32)}/redeliver`)).status, 404, 'an unknown delivery');

  const del = await c.get(page);
  t.match(del.text, /data-confirm="Delete this subscription\?/, 'deleting asks first');
  t.match((await c.submit(page, `${page}/delete`)).location, /done=subscription-deleted/);
  t.notOk(await h.store.webhookSubscriptions.getForAccount(a.id, sid));
  t.equal((await c.get(page)).status, 404);
});

t.test('another account\'s subscription reads as missing; forms need the CSRF token; output is escaped', async (t) => {
  const h = await startPreviewHarness(t);
  const other = await h.org();
  const created = await h.v1('POST', '/v1/webhooks', { key: other.key, body: { event_type: 'call-start', target_url: 'http://127.0.0.1:9/<b>x' } });
  t.equal(created.status, 201);
  await accountWithUser(h, 'b@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('b@example.com', PASSWORD);
  const path = `/dashboard/subscriptions/${created.body.sid}`;
  t.equal((await c.get(path)).status, 404);
  t.equal((await c.submit('/dashboard/subscriptions', `${path}/delete`)).status, 404);
  t.equal((await c.post('/dashboard/subscriptions', { event_type: 'hangup', target_url: 'https://x.example/', delivery_mode: 'async' })).status, 403, 'no token, no change');
  const bad = await c.submit('/dashboard/subscriptions', '/dashboard/subscriptions', { event_type: '<script>', target_url: '"><script>alert(1)</script>', delivery_mode: 'x' });
  t.equal(bad.status, 422);
  t.notMatch(bad.text, /<script>alert/, 'echoed values are escaped');
});
