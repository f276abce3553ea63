import t from 'tap';
import { createHmac } from 'node:crypto';
import { startHarness } from '../../helpers/harness.js';

// The spec's fields, and the fallback and transfer URL pairs the platform adds (docs/live-api-trunks.md).
const TRUNK_FIELDS = [
  'id', 'status', 'label', 'client_ref', 'endpoint_name', 'sip_domain', 'transport', 'voice_webhook_url', 'voice_webhook_method',
  'voice_fallback_url', 'voice_fallback_method', 'voice_refer_url', 'voice_refer_method',
  'cli_lookup_url', 'cli_lookup_method', 'default_caller_id', 'status_callback_url', 'status_callback_events',
  'status_callback_format', 'hangup_url', 'dual_channel_recording', 'allowed_caller_ids', 'created_at',
];

t.test('create, fetch, list, update and revoke a trunk', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const created = await h.request('POST', '/api/partner/trunks', {
    body: { label: 'Main PBX', client_ref: 'pbx-1', default_caller_id: '+15551230000', allowed_caller_ids: ['+15551230000'] },
  });
  t.equal(created.status, 201);
  const tr = created.body;
  t.equal(tr.status, 'pending', 'a new trunk is pending');
  t.match(tr.endpoint_name, /^tk-[a-z0-9]{12}$/);
  t.equal(tr.transport, 'tcp', 'transport defaults to tcp');
  t.equal(tr.voice_webhook_method, 'POST');
  t.equal(tr.cli_lookup_method, 'POST');
  t.equal(tr.status_callback_events, 'completed');
  t.equal(tr.status_callback_format, null, 'status_callback_format is null on create');
  t.equal(tr.dual_channel_recording, false);
  t.same(tr.allowed_caller_ids, ['+15551230000']);
  t.same(Object.keys(tr).sort(), [...TRUNK_FIELDS, 'connection'].sort(), 'exactly the spec fields and the fallback and transfer pairs');
  t.same(tr.connection, {
    sip_domain: 'sip.test.example', sip_port: '5060', transport: 'tcp', wss_url: null,
    username: tr.endpoint_name, password: tr.connection.password, secret_available: true,
  });
  t.ok(tr.connection.password.length >= 32, 'strong generated SIP password');

  await h.app.trunks.settled();
  const fetched = await h.request('GET', `/api/partner/trunks/${tr.id}`);
  t.equal(fetched.status, 200);
  t.equal(fetched.body.status, 'active', 'active once the SIP layer has it');
  t.equal(fetched.body.connection.password, tr.connection.password, 'fetch includes the password');
  t.ok(h.engine.acceptsLogin(tr.endpoint_name, tr.connection.password), 'engine accepts the credentials');

  const second = await h.request('POST', '/api/partner/trunks', { body: { transport: 'udp' } });
  const list = await h.request('GET', '/api/partner/trunks');
  t.equal(list.status, 200);
  t.same(list.body.data.map((x: any) => x.id), [second.body.id, tr.id], 'newest first');
  t.notOk('connection' in list.body.data[0], 'no connection in the list');
  t.same(Object.keys(list.body.data[0]).sort(), [...TRUNK_FIELDS].sort());

  for (const method of ['PUT', 'PATCH']) {
    const upd = await h.request(method, `/api/partner/trunks/${tr.id}`, {
      body: {
        label: `via ${method}`, endpoint_name: 'tk-hijack', transport: 'wss', status: 'suspended', password: 'x',
        id: 999, unknown_field: 1, voice_webhook_url: 'https://hooks.example.com/voice', voice_webhook_method: 'GET',
      },
    });
    t.equal(upd.status, 200, `${method} succeeds`);
    t.equal(upd.body.label, `via ${method}`);
    t.equal(upd.body.endpoint_name, tr.endpoint_name, 'endpoint_name immutable');
    t.equal(upd.body.transport, 'tcp', 'transport immutable');
    t.equal(upd.body.status, 'active', 'status immutable through update');
    t.equal(upd.body.id, tr.id);
    t.equal(upd.body.connection.password, tr.connection.password, 'password unchanged');
    t.equal(upd.body.client_ref, 'pbx-1', 'fields not sent are kept');
    t.equal(upd.body.voice_webhook_method, 'GET');
  }
  const cleared = await h.request('PATCH', `/api/partner/trunks/${tr.id}`, { body: { label: null, allowed_caller_ids: null } });
  t.equal(cleared.body.label, null, 'null clears a nullable field');
  t.equal(cleared.body.allowed_caller_ids, null);

  const del = await h.request('DELETE', `/api/partner/trunks/${tr.id}`);
  t.equal(del.status, 200);
  t.same(del.body, { status: 'revoked' });
  t.notOk(h.engine.acceptsLogin(tr.endpoint_name, tr.connection.password), 'revoked credentials refused by the SIP layer');
  const after = await h.request('GET', `/api/partner/trunks/${tr.id}`);
  t.equal(after.body.status, 'revoked', 'soft delete: the record is kept');
  const again = await h.request('DELETE', `/api/partner/trunks/${tr.id}`);
  t.same(again.body, { status: 'revoked' }, 'revoking twice is idempotent');
  const put = await h.request('PUT', `/api/partner/trunks/${tr.id}`, { body: { label: 'zombie' } });
  t.equal(put.status, 409, 'a revoked trunk cannot be changed');
  t.same(put.body, { error: 'This trunk is revoked; a revoked trunk cannot be changed.', code: 'trunk_revoked' });
});

t.test('pending until the SIP layer has provisioned the trunk (fake clock)', async (t) => {
  const h = await startHarness(t, { fakeClock: true });
  await h.account();
  const tr = (await h.request('POST', '/api/partner/trunks', { body: {} })).body;
  t.equal((await h.request('GET', `/api/partner/trunks/${tr.id}`)).body.status, 'pending');
  t.notOk(h.engine.acceptsLogin(tr.endpoint_name, tr.connection.password), 'no logins before provisioning');
  await (h.clock as import('../../../src/clock.js').FakeClock).advance(1);
  await h.app.trunks.settled();
  t.equal((await h.request('GET', `/api/partner/trunks/${tr.id}`)).body.status, 'active');
  t.ok(h.engine.acceptsLogin(tr.endpoint_name, tr.connection.password));
});

t.test('a trunk revoked while provisioning stays revoked (fake clock)', async (t) => {
  const h = await startHarness(t, { fakeClock: true });
  await h.account();
  const tr = (await h.request('POST', '/api/partner/trunks', { body: {} })).body;
  await h.request('DELETE', `/api/partner/trunks/${tr.id}`);
  await (h.clock as import('../../../src/clock.js').FakeClock).advance(1);
  await h.app.trunks.settled();
  t.equal((await h.request('GET', `/api/partner/trunks/${tr.id}`)).body.status, 'revoked', 'a late provisioning result does not resurrect it');
  t.notOk(h.engine.acceptsLogin(tr.endpoint_name, tr.connection.password), 'and its credentials are not accepted');
});

t.test('empty bodies, defaults and sip_domain in the connection', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const empty = await h.request('POST', '/api/partner/trunks', { body: '' });
  t.equal(empty.status, 201, 'an empty JSON body creates a trunk with defaults');
  const noBody = await h.request('POST', '/api/partner/trunks');
  t.equal(noBody.status, 201, 'no body at all creates a trunk with defaults');
  const own = await h.request('POST', '/api/partner/trunks', { body: { sip_domain: 'pbx.customer.example', transport: 'tls' } });
  t.equal(own.body.connection.sip_domain, 'pbx.customer.example', "the trunk's own sip_domain wins");
  t.equal(own.body.connection.sip_port, '5061');
});

t.test('validation errors: 422 {message, errors} keyed by field', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const cases: Array<[string, Record<string, unknown>, string, RegExp]> = [
    ['label too long', { label: 'x'.repeat(256) }, 'label', /255 characters/],
    ['label with a line break', { label: 'a\nb' }, 'label', /line breaks/],
    ['client_ref too long', { client_ref: 'x'.repeat(256) }, 'client_ref', /255/],
    ['client_ref with CR', { client_ref: 'a\rb' }, 'client_ref', /line breaks/],
    ['default_caller_id too long', { default_caller_id: '1'.repeat(33) }, 'default_caller_id', /32 characters/],
    ['allowed caller id too long', { allowed_caller_ids: ['+1', '9'.repeat(33)] }, 'allowed_caller_ids.1', /32 characters/],
    ['allowed_caller_ids not an array', { allowed_caller_ids: '+1555' }, 'allowed_caller_ids', /array/],
    ['transport not in enum', { transport: 'sctp' }, 'transport', /tcp, tls, udp, wss/],
    ['method not in enum', { voice_webhook_method: 'PUT' }, 'voice_webhook_method', /POST, GET/],
    ['cli method not in enum', { cli_lookup_method: 'post' }, 'cli_lookup_method', /POST, GET/],
    ['webhook not a URL', { voice_webhook_url: 'not a url' }, 'voice_webhook_url', /http or https URL/],
    ['webhook with another scheme', { voice_webhook_url: 'ftp://x.example/a' }, 'voice_webhook_url', /http or https URL/],
    ['lookup not a URL', { cli_lookup_url: 'javascript:alert(1)' }, 'cli_lookup_url', /URL/],
    ['callback not a URL', { status_callback_url: 12 }, 'status_callback_url', /string/],
    ['hangup url not a URL', { hangup_url: '//x' }, 'hangup_url', /URL/],
    ['boolean as a string', { dual_channel_recording: 'true' }, 'dual_channel_recording', /boolean/],
    ['boolean as a number', { dual_channel_recording: 1 }, 'dual_channel_recording', /boolean/],
    ['unknown callback event', { status_callback_events: 'ringing exploded' }, 'status_callback_events', /space-separated/],
    ['sip_domain not a host', { sip_domain: 'bad host/x' }, 'sip_domain', /host name/],
    ['label a number', { label: 5 }, 'label', /string/],
  ];
  for (const [name, body, field, message] of cases) {
    const res = await h.request('POST', '/api/partner/trunks', { body });
    t.equal(res.status, 422, `${name}: 422`);
    t.equal(res.body?.message, 'The given data was invalid.', `${name}: message`);
    t.match(res.body?.errors?.[field]?.[0], message, `${name}: errors.${field}`);
  }
  const several = await h.request('POST', '/api/partner/trunks', { body: { label: 'a\nb', transport: 'x', dual_channel_recording: 'no' } });
  t.same(Object.keys(several.body.errors).sort(), ['dual_channel_recording', 'label', 'transport'], 'every bad field reported');
  const arr = await h.request('POST', '/api/partner/trunks', { body: [1, 2] });
  t.equal(arr.status, 422);
  t.match(arr.body.errors.body[0], /JSON object/);
  const bad = await h.request('POST', '/api/partner/trunks', { body: '{"label": ' });
  t.equal(bad.status, 422, 'malformed JSON is a validation error');
  t.match(bad.body.errors.body[0], /valid JSON/);
  const form = await h.request('POST', '/api/partner/trunks', { body: 'label=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(form.status, 415, 'non-JSON bodies are refused');
  t.match(form.body.error, /application\/json/);
  const accepted = await h.request('POST', '/api/partner/trunks', { body: { label: 'x'.repeat(255), default_caller_id: '+1' + '5'.repeat(14), status_callback_events: 'initiated ringing in-progress completed' } });
  t.equal(accepted.status, 201, 'values at the limits are accepted');
  const upd = await h.request('PATCH', `/api/partner/trunks/${accepted.body.id}`, { body: { label: 'x'.repeat(256) } });
  t.equal(upd.status, 422, 'update validates too');
  t.ok(upd.body.errors.label);
  const stored = await h.request('GET', `/api/partner/trunks/${accepted.body.id}`);
  t.equal(stored.body.label, 'x'.repeat(255), 'a rejected update changes nothing');
});

t.test('without Accept: application/json a validation error is a redirect', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const plain = await h.request('POST', '/api/partner/trunks', { body: { label: 'a\nb' }, headers: { accept: '*/*' } });
  t.equal(plain.status, 302);
  t.equal(plain.headers.get('location'), '/');
  const back = await h.request('POST', '/api/partner/trunks', {
    body: { transport: 'x' }, headers: { accept: 'text/html', referer: `${h.url}/dashboard/trunks/new?x=1` },
  });
  t.equal(back.status, 302);
  t.equal(back.headers.get('location'), '/dashboard/trunks/new?x=1', 'back to the same-origin page');
  const offsite = await h.request('POST', '/api/partner/trunks', { body: { transport: 'x' }, headers: { accept: 'text/html', referer: 'https://evil.example/phish' } });
  t.equal(offsite.headers.get('location'), '/', 'never redirects off-site');
  const ok = await h.request('POST', '/api/partner/trunks', { body: { label: 'fine' }, headers: { accept: 'text/html' } });
  t.equal(ok.status, 201, 'successes are JSON whatever the Accept header');
});

t.test('trunk capacity', async (t) => {
  const h = await startHarness(t);
  await h.account({ trunkCapacity: 2 });
  t.equal((await h.request('POST', '/api/partner/trunks', { body: {} })).status, 201);
  const second = await h.request('POST', '/api/partner/trunks', { body: {} });
  t.equal(second.status, 201);
  const third = await h.request('POST', '/api/partner/trunks', { body: {} });
  t.equal(third.status, 422, 'capacity exceeded → 422');
  t.equal(third.body.message, 'Trunk capacity exceeded.');
  t.match(third.body.errors.trunk[0], /at most 2 trunks/);
  await h.request('DELETE', `/api/partner/trunks/${second.body.id}`);
  t.equal((await h.request('POST', '/api/partner/trunks', { body: {} })).status, 201, 'revoking frees capacity');
  const burst = await Promise.all(Array.from({ length: 5 }, () => h.request('POST', '/api/partner/trunks', { body: {} })));
  t.same(burst.map((r) => r.status), [422, 422, 422, 422, 422], 'a concurrent burst cannot overshoot');
});

t.test('wss connection with ICE servers', async (t) => {
  const secret = 'turn-shared-secret-for-tests';
  const h = await startHarness(t, { env: { RINGBASE_TURN_SECRET: secret, RINGBASE_TURN_HOST: 'turn.test.example', RINGBASE_SIP_WSS_PORT: '443', RINGBASE_SIP_WSS_PATH: '/sip' } });
  await h.account();
  const wss = (await h.request('POST', '/api/partner/trunks', { body: { transport: 'wss', label: 'agent seat' } })).body;
  t.equal(wss.connection.wss_url, 'wss://sip.test.example:443/sip');
  t.equal(wss.connection.transport, 'wss');
  const c1 = await h.request('GET', `/api/partner/trunks/${wss.id}/connection`);
  t.equal(c1.status, 200);
  t.same(Object.keys(c1.body).sort(), ['ice_servers', 'password', 'secret_available', 'sip_domain', 'username', 'wss_url']);
  t.equal(c1.body.username, wss.endpoint_name);
  t.equal(c1.body.password, wss.connection.password);
  const ice = c1.body.ice_servers;
  t.equal(ice.length, 1);
  t.same(ice[0].urls, [
    'stun:turn.test.example:3478', 'turn:turn.test.example:3478?transport=udp',
    'turn:turn.test.example:3478?transport=tcp', 'turns:turn.test.example:5349?transport=tcp',
  ]);
  const [expiry, id] = ice[0].username.split(':');
  t.equal(id, wss.endpoint_name);
  t.ok(Number(expiry) > Date.now() / 1000 && Number(expiry) <= Date.now() / 1000 + 3601, 'expires within the TTL');
  t.equal(ice[0].credential, createHmac('sha1', secret).update(ice[0].username).digest('base64'), 'coturn REST credential');
  t.notOk(c1.text.includes(secret), 'the TURN secret itself never leaves the server');

  const tcp = (await h.request('POST', '/api/partner/trunks', { body: {} })).body;
  const notWss = await h.request('GET', `/api/partner/trunks/${tcp.id}/connection`);
  t.equal(notWss.status, 404, 'connection is for wss trunks only');
  t.ok(notWss.body.message);
});

t.test('ICE servers without TURN: STUN only', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const wss = (await h.request('POST', '/api/partner/trunks', { body: { transport: 'wss' } })).body;
  const c = await h.request('GET', `/api/partner/trunks/${wss.id}/connection`);
  t.same(c.body.ice_servers, [{ urls: ['stun:sip.test.example:3478'] }]);
});

t.test('a password that cannot be decrypted is reported, not crashed on', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const tr = (await h.request('POST', '/api/partner/trunks', { body: { transport: 'wss' } })).body;
  // Damaged behind the repository's back, as a damaged file or a restore with another master key would leave it;
  // through the store's own database (SQLite or PostgreSQL), not a second SQLite connection. Nothing has read the
  // trunk by id since its creation forgot the cached trunks, so the request below reads the damaged row.
  await h.store.sql.run('UPDATE trunks SET sip_password_enc = ? WHERE id = ?', ['v1.garbage.garbage.garbage', tr.id]);
  const res = await h.request('GET', `/api/partner/trunks/${tr.id}`);
  t.equal(res.status, 200);
  t.equal(res.body.connection.password, null);
  t.equal(res.body.connection.secret_available, false);
  const conn = await h.request('GET', `/api/partner/trunks/${tr.id}/connection`);
  t.equal(conn.body.password, null);
  t.equal(conn.body.secret_available, false);
});
