import t from 'tap';
import { statSync } from 'node:fs';
import path from 'node:path';
import { Agent, fetch as undiciFetch } from 'undici';
import { verify } from '../../../src/net/index.js';
import { startHarness } from '../../helpers/harness.js';
import { startWebhookApp } from '../../helpers/webhook-app.js';
import { startPreviewHarness } from './helpers.js';
import { NumberService } from '../../../src/numbers/service.js';

const LEAD = { phone: '+15550100003', campaign: 'spring', attributes: { name: 'Ada', source: 'form-7' } };

t.test('a lead is accepted (202), stored, readable, and delivered as a signed web-form event', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const token = await h.store.orgSettings.rotateInjectionToken(a.id);
  await h.store.orgSettings.allowIp(a.id, '127.0.0.0/8');
  const receiver = await startWebhookApp(t);
  receiver.on('/leads', { status: 200, body: '' });
  const sub = (await h.v1('POST', '/v1/webhooks', { body: { event_type: 'web-form', target_url: `${receiver.url}/leads` } })).body;

  const res = await h.v1('POST', '/v1/lead-injections', { key: null, body: LEAD, headers: { 'x-injection-token': token } });
  t.equal(res.status, 202);
  t.match(res.body, { sid: /^LD[0-9a-f]{32}$/, status: 'accepted', phone: LEAD.phone, campaign: 'spring', attributes: LEAD.attributes, created_at: String });
  t.ok(res.headers.get('x-ratelimit-limit'));
  t.same((await h.v1('GET', `/v1/leads/${res.body.sid}`)).body, res.body);
  t.equal((await h.v1('GET', `/v1/leads/${res.body.sid}`, { key: (await h.org()).key })).status, 404, 'other accounts cannot read it');

  const delivered = await receiver.waitFor('/leads');
  t.same(verify(sub.secret, delivered.body, delivered.headers['x-service-signature'], Math.floor(Date.now() / 1000)), { ok: true });
  t.match(delivered.json, { event_type: 'web-form', call_sid: null, data: { lead_sid: res.body.sid, phone: LEAD.phone, campaign: 'spring', attributes: LEAD.attributes } });
});

t.test('token and IP allow-list; the API key is not enough', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const send = (headers: Record<string, string>) => h.v1('POST', '/v1/lead-injections', { key: null, body: LEAD, headers });
  t.match((await send({})).body.error, { code: 'injection_token_required', status: 401 });
  t.match((await h.v1('POST', '/v1/lead-injections', { body: LEAD })).body.error, { code: 'injection_token_required' }, 'API key alone');
  const old = await h.store.orgSettings.rotateInjectionToken(a.id);
  const token = await h.store.orgSettings.rotateInjectionToken(a.id);
  t.match((await send({ 'x-injection-token': old })).body.error, { code: 'injection_token_invalid' }, 'rotated token stops working');
  t.match((await send({ 'x-injection-token': token.slice(0, -1) + (token.endsWith('A') ? 'B' : 'A') })).body.error, { code: 'injection_token_invalid' });
  t.match((await send({ 'x-injection-token': 'inj_999_aaaaaaaaaaaaaaaaaaaaaaaaaaaaa' })).body.error, { code: 'injection_token_invalid' });
  const refused = await send({ 'x-injection-token': token });
  t.match(refused.body.error, { code: 'ip_not_allowed', status: 403, message: /127\.0\.0\.1/ }, 'empty allow-list refuses everyone');
  await h.store.orgSettings.allowIp(a.id, '203.0.113.0/24');
  t.equal((await send({ 'x-injection-token': token })).status, 403);
  // 127.0.0.1 is a trusted proxy in this harness, so the address it forwards counts.
  t.equal((await send({ 'x-injection-token': token, 'x-forwarded-for': '203.0.113.9' })).status, 202);
  t.equal((await send({ 'x-injection-token': token, 'x-forwarded-for': '203.0.113.9, 198.51.100.1' })).status, 403, 'the rightmost untrusted hop is the client');
});

t.test('lead body validation', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const token = await h.store.orgSettings.rotateInjectionToken(a.id);
  await h.store.orgSettings.allowIp(a.id, '127.0.0.1');
  const cases: Array<[unknown, string, string]> = [
    [{ campaign: 'x' }, 'parameter_missing', 'phone'],
    [{ phone: '+15550100003' }, 'parameter_missing', 'campaign'],
    [{ ...LEAD, phone: '555-0100' }, 'parameter_invalid', 'phone'],
    [{ ...LEAD, phone: '+0123' }, 'parameter_invalid', 'phone'],
    [{ ...LEAD, campaign: '' }, 'parameter_invalid', 'campaign'],
    [{ ...LEAD, campaign: 'a\nb' }, 'parameter_invalid', 'campaign'],
    [{ ...LEAD, attributes: { age: 42 } }, 'parameter_invalid', 'attributes.age'],
    [{ ...LEAD, attributes: ['a'] }, 'parameter_invalid', 'attributes'],
    [{ ...LEAD, extra: 1 }, 'parameter_unknown', 'extra'],
  ];
  for (const [body, code, param] of cases) {
    const res = await h.v1('POST', '/v1/lead-injections', { key: null, body, headers: { 'x-injection-token': token } });
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body.error, { code, param }, JSON.stringify(body));
  }
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM leads'))!.n, 0);
});

t.test('self-signed TLS: generated once (key 0600); a spoofed X-Forwarded-For from an untrusted peer is ignored', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_TLS_SELF_SIGNED: '1' } });
  const keyFile = path.join(h.dataDir, 'tls', 'self-signed.key');
  t.equal(statSync(keyFile).mode & 0o777, 0o600);
  const a = await h.account();
  const token = await h.store.orgSettings.rotateInjectionToken(a.id);
  await h.store.orgSettings.allowIp(a.id, '203.0.113.0/24');
  const port = (h.app.http.server.address() as { port: number }).port;
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  t.teardown(() => dispatcher.close());
  const post = (headers: Record<string, string>) => undiciFetch(`https://127.0.0.1:${port}/v1/lead-injections`, {
    method: 'POST', dispatcher, body: JSON.stringify(LEAD), headers: { 'content-type': 'application/json', 'x-injection-token': token, ...headers },
  });
  const spoofed = await post({ 'x-forwarded-for': '203.0.113.9' });
  t.equal(spoofed.status, 403);
  t.equal(((await spoofed.json()) as { error: { code: string } }).error.code, 'ip_not_allowed');
  await h.store.orgSettings.allowIp(a.id, '127.0.0.1');
  t.equal((await post({})).status, 202, 'served over real TLS');
  const list = await undiciFetch(`https://127.0.0.1:${port}/v1/webhooks`, { dispatcher, headers: { authorization: `Bearer ${a.key}` } });
  t.equal(list.status, 200);
});

/** An account that injects leads from loopback, with a queue `sales` and the number +15550100002. */
async function leadScene(t: Parameters<typeof startPreviewHarness>[0]) {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const v1 = (method: string, path: string, body?: unknown) => h.v1(method, path, { key: a.key, ...(body === undefined ? {} : { body }) });
  const token = await h.store.orgSettings.rotateInjectionToken(a.id);
  await h.store.orgSettings.allowIp(a.id, '127.0.0.0/8');
  await v1('POST', '/v1/queues', { friendly_name: 'sales' });
  const numbers = new NumberService(h.store.numbers, { allowLocalTargets: true });
  await numbers.add('+15550100002', a.id, {});
  return { h, v1, token, numbers };
}

t.test('speed to lead: a campaign with a queue turns each lead into a callback due now, carrying its attributes', async (t) => {
  const { h, v1, token } = await leadScene(t);

  const refused = [
    [{ speed_to_lead_queue: 'nope', caller_id: '+15550100002' }, 'speed_to_lead_queue'],
    [{ speed_to_lead_queue: 'sales' }, 'caller_id'],
    [{ speed_to_lead_queue: 'sales', caller_id: '+15559999999' }, 'caller_id'],
  ] as const;
  for (const [body, param] of refused) {
    const res = await v1('POST', '/v1/lead-campaigns/spring', body);
    t.equal(res.status, 400, JSON.stringify(body));
    t.match(res.body.error, { param });
  }
  const set = await v1('POST', '/v1/lead-campaigns/spring', { speed_to_lead_queue: 'sales', caller_id: '+15550100002' });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.match(set.body, { name: 'spring', speed_to_lead_queue_sid: /^QU/, caller_id: '+15550100002' });
  t.same((await v1('GET', '/v1/lead-campaigns')).body.data.map((c: { name: string }) => c.name), ['spring']);

  const lead = await h.v1('POST', '/v1/lead-injections', { key: null, body: LEAD, headers: { 'x-injection-token': token } });
  t.match(lead.body, { callback_sid: /^CB[0-9a-f]{32}$/ });
  const callback = (await v1('GET', `/v1/callbacks/${lead.body.callback_sid}`)).body;
  t.match(callback, { to: LEAD.phone, from: '+15550100002', queue_sid: set.body.speed_to_lead_queue_sid, attributes: LEAD.attributes, lead_sid: lead.body.sid, status: 'scheduled' });
  t.ok(Date.parse(callback.due_at) <= Date.now(), 'due now');
  t.equal((await v1('GET', `/v1/leads/${lead.body.sid}`)).body.callback_sid, lead.body.callback_sid);

  t.equal((await v1('DELETE', '/v1/lead-campaigns/spring')).status, 204);
  const plain = await h.v1('POST', '/v1/lead-injections', { key: null, body: LEAD, headers: { 'x-injection-token': token } });
  t.equal(plain.body.callback_sid, null, 'without the setting a lead is only collected');
  t.equal((await v1('GET', '/v1/lead-campaigns/spring')).status, 404);
});

t.test("speed to lead: once the campaign's caller ID is released, new leads are refused (409) and nothing is stored", async (t) => {
  const { h, v1, token, numbers } = await leadScene(t);
  t.equal((await v1('POST', '/v1/lead-campaigns/spring', { speed_to_lead_queue: 'sales', caller_id: '+15550100002' })).status, 200);

  await numbers.release('+15550100002');
  await numbers.claim('+15550100002', (await h.org()).id);
  const refused = await h.v1('POST', '/v1/lead-injections', { key: null, body: LEAD, headers: { 'x-injection-token': token } });
  t.equal(refused.status, 409);
  t.match(refused.body.error, { code: 'campaign_caller_id_unusable', message: /spring.*\+15550100002 is not a number of this account.*caller_id/ });
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM leads'))!.n, 0, 'no lead stored');
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM acd_callbacks'))!.n, 0, 'no callback scheduled');
});
