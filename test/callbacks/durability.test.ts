// SIGKILL with callbacks in flight: after the restart every queued callback is delivered (the lease of the dead
// process expires and the rows are claimed again): nothing lost. Runs on the backend the run selects: with
// RINGBASE_TEST_STORE=postgres the killed server, the restarted one and the final count share one database.
import t from 'tap';
import { openStore } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';
import { CallbackStore } from '../../src/callbacks/store.js';
import { databaseEnv, harnessDatabase } from '../helpers/backends.js';
import { tempDir } from '../helpers/harness.js';
import { startServerProcess } from '../helpers/server-process.js';
import { startWebhookApp } from '../helpers/webhook-app.js';

const STREAMS = 5;

t.test('callbacks in flight when the server is killed are delivered after the restart', async (t) => {
  const dataDir = tempDir(t);
  const hooks = await startWebhookApp(t);
  hooks.on('/cb', 'hang');
  const database = await harnessDatabase(t);
  const store = await openStore(dataDir, systemClock(), database);
  const account = await store.accounts.create({ name: 'durable', trunking: false, trunkCapacity: 1 });
  const queue = new CallbackStore(store.sql, systemClock());
  const sids: string[] = [];
  for (let i = 0; i < STREAMS; i++) {
    for (const n of [1, 2]) sids.push(await queue.enqueue({ accountId: account.id, stream: `CF${i}`, url: `${hooks.url}/cb`, method: 'POST', fields: { Stream: String(i), SequenceNumber: String(n) } }));
  }
  await store.close();
  const env = { ...databaseEnv(database), RINGBASE_DATA_DIR: dataDir, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' };
  let server = await startServerProcess(env, t);
  await hooks.waitFor('/cb', STREAMS);
  t.equal(hooks.requests.length, STREAMS, 'the head of every stream is in flight, the rest wait behind it');
  server.child.kill('SIGKILL');
  await server.exited;

  const before = hooks.requests.length;
  hooks.on('/cb', { status: 204, body: '' });
  server = await startServerProcess(env, t);
  await hooks.waitFor('/cb', before + STREAMS * 2);
  const after = hooks.requests.slice(before).map((r) => `${r.form.get('Stream')}:${r.form.get('SequenceNumber')}`);
  t.same([...after].sort(), Array.from({ length: STREAMS }, (_, i) => [`${i}:1`, `${i}:2`]).flat().sort(), 'every callback delivered after the restart');
  for (let i = 0; i < STREAMS; i++) t.ok(after.indexOf(`${i}:1`) < after.indexOf(`${i}:2`), `stream ${i} in order`);
  server.child.kill('SIGTERM');
  await server.exited;
  const check = await openStore(dataDir, systemClock(), database);
  t.teardown(() => check.close());
  t.equal((await check.sql.one<{ n: number }>("SELECT COUNT(*) AS n FROM callback_outbox WHERE status = 'delivered'"))!.n, STREAMS * 2,
    `${check.sql.dialect}: ${STREAMS * 2} callbacks queued, ${STREAMS} in flight at the SIGKILL, all recorded delivered (0 lost)`);
});
