import t from 'tap';
import { startPreviewHarness } from './helpers.js';
import { startWebhookApp } from '../../helpers/webhook-app.js';

const HOOK = 'http://127.0.0.1:9/hook';

t.test('create, fetch, list, update, pause/resume, delete', async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  const created = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'hangup', target_url: HOOK, headers: { 'X-Tenant': 'acme' } } });
  t.equal(created.status, 201);
  const sub = created.body;
  t.match(sub, {
    sid: /^WH[0-9a-f]{32}$/, event_type: 'hangup', target_url: HOOK, headers: { 'X-Tenant': '••••' }, delivery_mode: 'async',
    timeout_ms: 5000, max_retries: 5, payload_template: null, status: 'active', secret: /^whsec_/,
  });
  const stored = (await h.store.sql.one<{ secret_enc: string }>('SELECT secret_enc FROM webhook_subscriptions WHERE sid = ?', [sub.sid]))!;
  t.notMatch(stored.secret_enc, sub.secret, 'the secret is stored encrypted');

  const fetched = await h.v1('GET', `/v1/webhooks/${sub.sid}`);
  t.equal(fetched.status, 200);
  t.notOk('secret' in fetched.body, 'never returned again');
  t.same(Object.keys((await h.v1('GET', '/v1/webhooks')).body.data[0]).sort(), ['event_type', 'sid', 'status', 'target_url']);

  const conflict = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'hangup', target_url: HOOK } });
  t.equal(conflict.status, 409);
  t.match(conflict.body.error, { code: 'subscription_exists', param: 'event_type', type: 'invalid_request_error' });

  const paused = await h.v1('POST', `/v1/webhooks/${sub.sid}`, { body: { status: 'paused', max_retries: 2, timeout_ms: 1500, headers: {}, payload_template: '{"f": {{data.from}}}' } });
  t.equal(paused.status, 200);
  t.match(paused.body, { status: 'paused', max_retries: 2, timeout_ms: 1500, headers: {}, payload_template: '{"f": {{data.from}}}' });
  const resumed = await h.v1('POST', `/v1/webhooks/${sub.sid}`, { body: { status: 'active', payload_template: null } });
  t.match(resumed.body, { status: 'active', payload_template: null, max_retries: 2 });
  t.equal((await h.v1('POST', `/v1/webhooks/${sub.sid}`, { body: { event_type: 'queued' } })).body.error.code, 'parameter_unknown', 'event_type is immutable');
  t.equal((await h.v1('POST', `/v1/webhooks/${sub.sid}`, { body: { status: 'deleted' } })).body.error.param, 'status');

  const del = await h.v1('DELETE', `/v1/webhooks/${sub.sid}`);
  t.equal(del.status, 204);
  t.equal(del.text, '');
  t.ok(del.headers.get('x-request-id'));
  const gone = await h.v1('GET', `/v1/webhooks/${sub.sid}`);
  t.equal(gone.status, 404);
  t.match(gone.body.error, { code: 'not_found', type: 'invalid_request_error', status: 404 });
  t.equal((await h.v1('DELETE', `/v1/webhooks/${sub.sid}`)).status, 404);
  t.equal((await h.v1('POST', '/v1/webhooks', { body: { event_type: 'hangup', target_url: HOOK } })).status, 201, 'the type is free again');
});

t.test("another account's subscription is 404 everywhere", async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const b = await h.org();
  const sub = (await h.v1('POST', '/v1/webhooks', { key: a.key, body: { event_type: 'queued', target_url: HOOK } })).body;
  for (const [method, path, body] of [['GET', `/v1/webhooks/${sub.sid}`], ['POST', `/v1/webhooks/${sub.sid}`, { status: 'paused' }], ['DELETE', `/v1/webhooks/${sub.sid}`], ['GET', `/v1/webhooks/${sub.sid}/deliveries`]] as const) {
    const res = await h.v1(method, path, { key: b.key, ...(body ? { body } : {}) });
    t.equal(res.status, 404, `${method} ${path}`);
  }
  t.same((await h.v1('GET', '/v1/webhooks', { key: b.key })).body.data, []);
  t.equal((await h.v1('POST', '/v1/webhooks', { key: b.key, body: { event_type: 'queued', target_url: HOOK } })).status, 201, 'one per type per account');
  t.equal((await h.v1('GET', `/v1/webhooks/${sub.sid}`, { key: a.key })).body.status, 'active', 'untouched');
});

t.test('target_url must be https and allow-listed; hostile targets refused', async (t) => {
  const h = await startPreviewHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '0' } });
  const a = await h.account();
  await h.store.orgSettings.allowHost(a.id, 'example.com');
  const hostile = [
    'http://example.com/hook', 'ftp://example.com/x', 'https://user:pw@example.com/', 'https://example.com@10.0.0.1/',
    'https://evil-example.com/', 'https://example.com.evil.net/', 'https://127.0.0.1/', 'https://2130706433/', 'https://0177.0.0.1/',
    'https://0x7f.0.0.1/', 'https://127.1/', 'https://[::ffff:127.0.0.1]/', 'https://[::1]/', 'https://localhost./', 'https://localhost/',
    'https://169.254.169.254/latest/meta-data/', 'https://metadata.google.internal/', 'https://[fd00:ec2::254]/', 'https://100.64.0.1/',
    'https://0.0.0.0/', 'https://10.0.0.1/', 'https://192.168.1.1/', 'https://172.16.0.1/', 'https://[fe80::1]/', 'https://224.0.0.1/',
    'https://metadata/', 'https://foo.localhost/', 'https://printer.local/', 'https://[64:ff9b::7f00:1]/', 'https://[2002:7f00:1::]/',
    'not a url', 'https://',
  ];
  t.ok(hostile.length >= 30);
  for (const target_url of hostile) {
    const res = await h.v1('POST', '/v1/webhooks', { key: a.key, body: { event_type: 'hangup', target_url } });
    t.equal(res.status, 400, target_url);
    t.equal(res.body.error?.param, 'target_url', target_url);
  }
  const notListed = await h.v1('POST', '/v1/webhooks', { key: a.key, body: { event_type: 'hangup', target_url: 'https://other.example.net/h' } });
  t.match(notListed.body.error.message, /allow-list.*ringbase org allow-host/);
  const ok = await h.v1('POST', '/v1/webhooks', { key: a.key, body: { event_type: 'hangup', target_url: 'https://hooks.example.com/h' } });
  t.equal(ok.status, 201, 'subdomains of an allowed host are fine');
  const update = await h.v1('POST', `/v1/webhooks/${ok.body.sid}`, { key: a.key, body: { target_url: 'https://169.254.169.254/' } });
  t.equal(update.body.error.param, 'target_url', 'updates are checked too');
});

t.test('custom headers cannot override ours or break framing', async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  for (const name of ['X-Service-Signature', 'x-service-event', 'Content-Type', 'Host', 'Content-Length', 'Transfer-Encoding']) {
    const res = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'hangup', target_url: HOOK, headers: { [name]: 'x' } } });
    t.match(res.body.error, { code: 'parameter_invalid', param: `headers.${name}` }, name);
  }
  const crlf = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'hangup', target_url: HOOK, headers: { 'X-A': 'a\r\nX-B: b' } } });
  t.equal(crlf.body.error.param, 'headers.X-A');
  const badName = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'hangup', target_url: HOOK, headers: { 'X A': 'a' } } });
  t.equal(badName.body.error.param, 'headers.X A');
});

t.test('payload templates are validated when saved', async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  const bad: Array<[string, RegExp]> = [
    ['{"from": {{data.nope}}}', /not a field of hangup/],
    ['{"from": "{{data.from}}"}', /valid JSON/],
    ['{"from": {{data.from}}', /valid JSON/],
    ['{"from": {{data.from}', /unbalanced/],
    ['{"x": {{ data | upper }}}', /dotted path/],
    ['{"x": {{secret}}}', /not a field/],
  ];
  for (const [payload_template, message] of bad) {
    const res = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'hangup', target_url: HOOK, payload_template } });
    t.match(res.body.error, { code: 'parameter_invalid', param: 'payload_template', message }, payload_template);
  }
  const ok = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'web-form', target_url: HOOK, payload_template: '{"lead": {{ data.lead_sid }}, "name": {{data.attributes.name}}, "all": {{data}}, "t": {{occurred_at}}}' } });
  t.equal(ok.status, 201);
});

t.test('delivery log: attempts, status codes, latency, errors; paginated', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const receiver = await startWebhookApp(t);
  receiver.on('/ok', { status: 204, body: '' });
  const sub = (await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call-start', target_url: `${receiver.url}/ok` } })).body;
  const done = new Promise<void>((resolve) => {
    let n = 0;
    h.app.eventSystem.worker.onAttempt(() => { if (++n === 3) resolve(); });
  });
  for (let i = 0; i < 3; i++) await h.app.eventSystem.events.emit({ type: 'call-start', accountId: a.id, callSid: `CA${i}`, data: { from: '+1', to: '+2', direction: 'inbound' } });
  await done;
  const page1 = await h.v1('GET', `/v1/webhooks/${sub.sid}/deliveries?page_size=2`);
  t.equal(page1.status, 200);
  t.equal(page1.body.data.length, 2);
  t.equal(page1.body.has_more, true);
  t.match(page1.body.data[0], { sid: /^DL/, event_sid: /^EV/, event_type: 'call-start', status: 'delivered', attempt_count: 1, next_attempt_at: null, completed_at: String });
  t.match(page1.body.data[0].attempts, [{ attempt: 1, status_code: 204, latency_ms: Number, error: null }]);
  const page2 = await h.v1('GET', `/v1/webhooks/${sub.sid}/deliveries?page_size=2&cursor=${page1.body.next_cursor}`);
  t.equal(page2.body.data.length, 1);
  t.equal(page2.body.next_cursor, null);
});
