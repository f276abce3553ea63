// Kills the server with SIGKILL while deliveries are in flight, restarts it on the same data dir (and database),
// and checks that every event is delivered at least once: the lease expires and the outbox hands the rows out
// again. Runs on the backend the run selects: with RINGBASE_TEST_STORE=postgres the killed server, the restarted
// one and the final count are all on one PostgreSQL database.
import t from 'tap';
import { openStore } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';
import { databaseEnv, harnessDatabase } from '../helpers/backends.js';
import { tempDir } from '../helpers/harness.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startWebhookApp, type ReceivedRequest } from '../helpers/webhook-app.js';

const LEADS = 10;

t.test('SIGKILL mid-delivery: every event delivered after restart, none lost', async (t) => {
  const dataDir = tempDir(t);
  const database = await harnessDatabase(t);
  const store = await openStore(dataDir, systemClock(), database);
  const account = await store.accounts.create({ name: 'durable', trunking: false, trunkCapacity: 1 });
  const key = (await store.apiKeys.create(account.id)).key;
  await store.orgSettings.allowHost(account.id, '127.0.0.1');
  await store.orgSettings.allowIp(account.id, '127.0.0.1');
  const token = await store.orgSettings.rotateInjectionToken(account.id);
  await store.close();

  const env = { ...databaseEnv(database), RINGBASE_DATA_DIR: dataDir, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_TRUSTED_PROXIES: '127.0.0.1' };
  const receiver = await startWebhookApp(t);
  receiver.on('/hook', 'hang');
  let server = await startServerProcess(env, t);
  const call = (url: string, path: string, body: unknown, headers: Record<string, string>) => fetch(url + path, {
    method: 'POST', body: JSON.stringify(body), headers: { 'content-type': 'application/json', 'x-forwarded-proto': 'https', ...headers },
  });
  const sub = await call(server.url, '/v1/webhooks', { event_type: 'web-form', target_url: `${receiver.url}/hook`, timeout_ms: 5000 }, { authorization: `Bearer ${key}` });
  t.equal(sub.status, 201);

  const leadSids: string[] = [];
  for (let i = 0; i < LEADS; i++) {
    const res = await call(server.url, '/v1/lead-injections', { phone: `+1555010${String(i).padStart(4, '0')}`, campaign: 'durable' }, { 'x-injection-token': token });
    t.equal(res.status, 202);
    leadSids.push(((await res.json()) as { sid: string }).sid);
  }
  await receiver.waitFor('/hook', LEADS);
  t.equal(receiver.requests.length, LEADS, 'every delivery is in flight, none answered');
  server.child.kill('SIGKILL');
  await server.exited;

  const firstAfterRestart = receiver.requests.length;
  receiver.on('/hook', { status: 200, body: '' });
  server = await startServerProcess(env, t);
  await receiver.waitFor('/hook', LEADS * 2);
  const redelivered = receiver.requests.slice(firstAfterRestart).map((r: ReceivedRequest) => r.json.data.lead_sid as string);
  t.same([...new Set(redelivered)].sort(), [...leadSids].sort(), 'every event delivered again after the crash');
  t.ok(receiver.requests.slice(firstAfterRestart).every((r) => r.headers['x-service-signature']), 'signed');
  server.child.kill('SIGTERM');
  await server.exited;

  // What the database kept: one event per lead, its delivery recorded delivered.
  const check = await openStore(dataDir, systemClock(), database);
  t.teardown(() => check.close());
  const rows = await check.sql.all<{ data: string; status: string }>(
    "SELECT e.data AS data, d.status AS status FROM events e JOIN webhook_deliveries d ON d.event_id = e.id WHERE e.event_type = 'web-form'");
  const events = rows.map((r) => ({ leadSid: (JSON.parse(r.data) as { lead_sid: string }).lead_sid, status: r.status }));
  const lost = leadSids.filter((sid) => !events.some((e) => e.leadSid === sid && e.status === 'delivered'));
  t.same(lost, [], `${check.sql.dialect}: ${LEADS} events in flight at the SIGKILL, ${events.length} stored, ${events.filter((e) => e.status === 'delivered').length} recorded delivered, ${lost.length} lost`);
});
