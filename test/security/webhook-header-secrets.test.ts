import t from 'tap';
import Database from 'better-sqlite3';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Writable } from 'node:stream';
import { startPreviewHarness } from '../http/preview/helpers.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { tempDir } from '../helpers/harness.js';
import { migrations } from '../../src/store/migrations.js';
import { DB_FILE, openStore } from '../../src/repositories.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { createEventSystem } from '../../src/events/index.js';
import { createLogger } from '../../src/logger.js';
import { systemClock } from '../../src/clock.js';
import { maskValue } from '../../src/events/subscription-headers.js';
import { storedBytes } from '../helpers/backends.js';

const callStart = (accountId: number, callSid = 'CA1') =>
  ({ type: 'call-start' as const, accountId, callSid, data: { from: '+15550100001', to: '+15550100002', direction: 'inbound' } });

t.test('masks: the last 4 characters from 8 characters up, nothing below', async (t) => {
  t.equal(maskValue('Bearer abcdef1234'), '••••1234');
  t.equal(maskValue('12345678'), '••••5678');
  t.equal(maskValue('1234567'), '••••');
  t.equal(maskValue(''), '••••');
});

t.test('custom header values: sealed at rest, masked in every response, sent in clear to the receiver', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const receiver = await startWebhookApp(t);
  receiver.on('/hook', { status: 200, body: '{}' });
  const credential = `Bearer rcv_${randomBytes(16).toString('hex')}`;
  const short = 'abc';
  const created = await h.v1('POST', '/v1/webhooks', {
    body: { event_type: 'call-start', target_url: `${receiver.url}/hook`, headers: { Authorization: credential, 'X-Short': short } },
  });
  t.equal(created.status, 201);
  const masks = { Authorization: `••••${credential.slice(-4)}`, 'X-Short': '••••' };
  t.same(created.body.headers, masks, 'masked even in the create response');
  t.same((await h.v1('GET', `/v1/webhooks/${created.body.sid}`)).body.headers, masks, 'masked on fetch');

  await h.app.eventSystem.events.emit(callStart(a.id));
  const delivered = await receiver.waitFor('/hook');
  t.equal(delivered.headers.authorization, credential, 'the receiver gets the real value');
  t.equal(delivered.headers['x-short'], short);

  const echoed = await h.v1('POST', `/v1/webhooks/${created.body.sid}`, { body: { headers: masks } });
  t.equal(echoed.status, 400, 'sending a mask back is refused rather than stored as the value');
  t.match(echoed.body.error, { code: 'parameter_invalid', param: 'headers.Authorization', message: /masked value/ });

  const rotated = `Bearer rcv_${randomBytes(16).toString('hex')}`;
  const updated = await h.v1('POST', `/v1/webhooks/${created.body.sid}`, { body: { headers: { Authorization: rotated } } });
  t.same(updated.body.headers, { Authorization: `••••${rotated.slice(-4)}` }, 'masked on update');
  await h.app.eventSystem.events.emit(callStart(a.id, 'CA2'));
  t.equal((await receiver.waitFor('/hook', 2)).headers.authorization, rotated, 'the new value is delivered');

  const page = await h.request('GET', `/dashboard/subscriptions/${created.body.sid}`, { headers: { accept: 'text/html' } });
  t.notOk(page.text.includes(rotated), 'not on the dashboard either');

  const bytes = await storedBytes(h.store, h.dataDir);
  for (const value of [credential, rotated]) {
    t.notOk(bytes.includes(Buffer.from(value)), 'no header value in the data dir or the database');
    t.notOk(bytes.includes(Buffer.from(value.slice(7, 30))), 'nor a fragment of it');
  }
  t.notOk(h.logs.join('').includes(rotated.slice(7)), 'nor in the logs');
});

// SQLite by nature: it seeds a database file as an earlier version (SQLite only) left it, on either half of the run.
t.test('values stored in clear by an earlier version are sealed at start, nothing lost', async (t) => {
  const dataDir = tempDir(t);
  const credential = `Bearer legacy_${randomBytes(16).toString('hex')}`;
  const receiver = await startWebhookApp(t);
  receiver.on('/legacy', { status: 200, body: '{}' });
  // A database at the schema version before sealed headers, with a subscription holding its value in clear.
  const secrets = createSecretBox(randomBytes(32));
  const before = migrations.findIndex((sql) => sql.includes('ADD COLUMN headers_enc'));
  const old = new Database(path.join(dataDir, DB_FILE));
  old.pragma('journal_mode = WAL');
  for (const sql of migrations.slice(0, before)) old.exec(sql);
  old.pragma(`user_version = ${before}`);
  const now = new Date().toISOString();
  const accountId = Number(old.prepare(`INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES ('legacy', 0, 0, ?)`).run(now).lastInsertRowid);
  old.prepare(`INSERT INTO webhook_subscriptions (sid, account_id, event_type, target_url, headers, delivery_mode, timeout_ms, max_retries, secret_enc, status, created_at, updated_at)
    VALUES ('WH0001', ?, 'call-start', ?, ?, 'async', 5000, 0, ?, 'active', ?, ?)`)
    .run(accountId, `${receiver.url}/legacy`, JSON.stringify({ Authorization: credential, 'X-Empty': '' }), secrets.seal('whsec_legacy'), now, now);
  old.close();

  const store = await openStore(dataDir, systemClock());
  t.teardown(() => store.close());
  await store.orgSettings.allowHost(accountId, '127.0.0.1');
  const logs: string[] = [];
  const log = createLogger('info', new Writable({ write(c, _e, cb) { logs.push(String(c)); cb(); } }));
  const events = await createEventSystem({ store, clock: systemClock(), secrets, log, allowLocalTargets: true });
  t.teardown(() => events.close());
  t.match(logs.join(''), /"subscriptions":1,"msg":"sealed custom webhook header values/, 'the start-up seal is logged (count only)');

  const sub = (await store.webhookSubscriptions.getForAccount(accountId, 'WH0001'))!;
  t.same(sub.headers, { Authorization: `••••${credential.slice(-4)}`, 'X-Empty': '••••' }, 'masks in the headers column');
  await events.events.emit(callStart(accountId));
  const delivered = await receiver.waitFor('/legacy');
  t.equal(delivered.headers.authorization, credential, 'the old value still reaches the receiver');
  t.equal(delivered.headers['x-empty'], '');

  t.notOk((await storedBytes(store, dataDir)).includes(Buffer.from(credential.slice(7))), 'the clear value is gone from the database files');
  t.notOk(logs.join('').includes(credential.slice(7)), 'and was never logged');
});
