// SIGKILL with calls up (sandbox engine, a real server process): after the restart every call reads a final
// status within 15 s (completed, cause platform-restart, ended at the dead process's last heartbeat), one hangup
// event and one `completed` status callback each, its recording closed and marked; a further restart finishes
// nothing twice. Runs on the backend the run selects: with RINGBASE_TEST_STORE=postgres every server process and
// the final reads are on one PostgreSQL database.
import t from 'tap';
import { openStore } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';
import { NumberService } from '../../src/numbers/service.js';
import { databaseEnv, harnessDatabase } from '../helpers/backends.js';
import { tempDir } from '../helpers/harness.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';

const DID = '+15550001000';
const CALLS = 3;
const FINAL_WITHIN_MS = 15_000;

t.test('SIGKILL with calls up: each call finished once after the restart', async (t) => {
  const dataDir = tempDir(t);
  const database = await harnessDatabase(t);
  const store = await openStore(dataDir, systemClock(), database);
  const account = await store.accounts.create({ name: 'crash', trunking: false, trunkCapacity: 1 });
  const key = (await store.apiKeys.create(account.id)).key;
  await store.orgSettings.allowHost(account.id, '127.0.0.1');
  await new NumberService(store.numbers, { allowLocalTargets: true }).add(DID, account.id, {});
  await store.close();

  const hooks = await startWebhookApp(t);
  hooks.on('/status', { body: '' });
  hooks.on('/events', { body: '' });
  const env = { ...databaseEnv(database), RINGBASE_DATA_DIR: dataDir, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_TRUSTED_PROXIES: '127.0.0.1' };
  let server = await startServerProcess(env, t);
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(server.url + path, {
      method, headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
      ...(body ? { body: JSON.stringify(body) } : {}),
    });
    return { status: res.status, json: (await res.json()) as Record<string, any> };
  };
  t.equal((await api('POST', '/v1/webhooks', { event_type: 'hangup', target_url: `${hooks.url}/events`, timeout_ms: 5000 })).status, 201);

  const sids: string[] = [];
  for (let i = 0; i < CALLS; i++) {
    const res = await api('POST', '/api/calls', {
      from: DID, to: `+1555777000${i}`, markup: '<Response><Say>Hello.</Say><Pause length="600"/></Response>', record: true,
      status_callback: `${hooks.url}/status`, status_callback_event: 'initiated completed',
    });
    t.equal(res.status, 201);
    sids.push(res.json.sid);
  }
  await until('every call in progress', 10_000, async () =>
    (await Promise.all(sids.map((s) => api('GET', `/api/calls/${s}`)))).every((r) => r.json.status === 'in-progress'));
  await until('every recording started', 10_000, async () =>
    (await Promise.all(sids.map((s) => api('GET', `/api/calls/${s}`)))).every((r) => r.json.recordings?.length === 1));

  const killedAt = Date.now();
  server.child.kill('SIGKILL');
  await server.exited;
  const restartedAt = Date.now();
  server = await startServerProcess(env, t);
  await until('every call final', FINAL_WITHIN_MS, async () =>
    (await Promise.all(sids.map((s) => api('GET', `/api/calls/${s}`)))).every((r) => r.json.status !== 'in-progress'));
  t.pass(`every call final ${Date.now() - restartedAt} ms after the restart began (limit ${FINAL_WITHIN_MS} ms)`);
  for (const sid of sids) {
    const { json } = await api('GET', `/api/calls/${sid}`);
    t.equal(json.status, 'completed', `${sid} completed`);
    t.equal(json.hangup_cause, 'platform-restart', 'cause platform-restart');
    const ended = Date.parse(json.ended_at);
    t.ok(ended <= killedAt && ended >= killedAt - 6_000, `ended at the last heartbeat (${killedAt - ended} ms before the kill)`);
  }

  await hooks.waitFor('/events', CALLS);
  const completed = () => hooks.requests.filter((r) => r.path === '/status' && r.form.get('CallbackEvent') === 'completed');
  await until('a completed status callback per call', 10_000, () => completed().length >= CALLS);

  // A second restart finds nothing left to finish; then a clean stop flushes every delivery.
  server.child.kill('SIGTERM');
  await server.exited;
  server = await startServerProcess(env, t);
  server.child.kill('SIGTERM');
  await server.exited;

  const hangups = hooks.requests.filter((r) => r.path === '/events').map((r) => r.json.call_sid as string);
  t.same([...hangups].sort(), [...sids].sort(), 'exactly one hangup event per call');
  t.same(completed().map((r) => r.form.get('CallSid')).sort(), [...sids].sort(), 'exactly one completed status callback per call');
  t.ok(completed().every((r) => r.form.get('CallStatus') === 'completed' && r.form.get('HangupCause') === 'platform-restart'), 'the callbacks carry the final status and cause');

  const after = await openStore(dataDir, systemClock(), database);
  t.teardown(() => after.close());
  for (const sid of sids) {
    const [rec] = await after.recordings.listForCall(sid);
    // The sandbox writes a recording's audio when it stops, so a killed sandbox leaves none: marked failed.
    t.equal(rec?.status, 'failed', `${sid}: its recording closed and marked`);
    t.ok((await after.calls.timeline(sid)).some((e) => e.kind === 'reconciled'), 'the timeline says why the call ended');
  }
  const stored = await after.sql.all<{ call_sid: string }>("SELECT call_sid FROM events WHERE event_type = 'hangup'");
  t.same(stored.map((e) => e.call_sid).sort(), [...sids].sort(),
    `${after.sql.dialect}: ${CALLS} calls up at the SIGKILL, ${stored.length} hangup events stored, one per call (0 lost)`);
  t.same(await after.instances.list(), [], 'no instance left registered after clean stops');
});
