import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { storedBytes } from '../helpers/backends.js';

t.test('no API key, SIP password, TURN secret or webhook header value in logs or in the database in clear', async (t) => {
  const turnSecret = 'turn-secret-' + 'z'.repeat(20);
  const h = await startHarness(t, { env: { RINGBASE_TURN_SECRET: turnSecret, RINGBASE_TRUSTED_PROXIES: '127.0.0.1' } });
  const a = await h.account();
  const headerValue = 'Bearer receiver-' + 'q'.repeat(24);
  await h.store.orgSettings.allowHost(a.id, 'hooks.example.com');
  const sub = await h.request('POST', '/v1/webhooks', {
    headers: { 'x-forwarded-proto': 'https' },
    body: { event_type: 'hangup', target_url: 'https://hooks.example.com/in', headers: { Authorization: headerValue } },
  });
  t.equal(sub.status, 201);
  const created = await h.request('POST', '/api/partner/trunks', { body: { transport: 'wss' } });
  const password = created.body.connection.password;
  await h.request('GET', `/api/partner/trunks/${created.body.id}`);
  await h.request('GET', `/api/partner/trunks/${created.body.id}/connection`);
  await h.request('GET', '/api/partner/trunks', { key: null, headers: { authorization: `Bearer ${a.key}x` } });
  // Log an object the way careless code might; redaction must still hide it.
  h.app.http.log.info({ password, apiKey: a.key, headers: { authorization: `Bearer ${a.key}` } }, 'careless log line');
  const logs = h.logs.join('');
  t.ok(logs.length > 0, 'something was logged');
  // Every file of the data dir, subdirectories (media cache, recordings) included, and on PostgreSQL every row.
  const db = await storedBytes(h.store, h.dataDir);
  for (const [name, secret] of [['API key', a.key], ['SIP password', password], ['TURN secret', turnSecret], ['webhook header value', headerValue]] as const) {
    t.notOk(logs.includes(secret), `${name} not in logs`);
    t.notOk(db.includes(Buffer.from(secret)), `${name} not in the database files`);
    t.notOk(db.includes(Buffer.from(secret.slice(8, 30))), `no fragment of the ${name} in the database files`);
  }
  t.match(logs, /\[redacted\]/, 'redaction visible');
});
