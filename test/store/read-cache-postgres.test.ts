// Read caches across PostgreSQL nodes: two PostgresDb instances on one database stand for two control planes.
// A key revoked on one is refused by the other within a second (LISTEN/NOTIFY); while a node's listening
// connection is down its reads go to the database, and it listens again by itself.
import t, { type Test } from 'tap';
import { once } from 'node:events';
import { FakeClock } from '../../src/clock.js';
import { AccountRepo } from '../../src/store/accounts.js';
import { ApiKeyRepo } from '../../src/store/api-keys.js';
import { PostgresListener } from '../../src/store/postgres-listener.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import { freshDatabase } from '../helpers/backends.js';
import { CACHED_TABLES } from '../helpers/caches.js';
import { bounded, until } from '../helpers/waits.js';

async function twoNodes(t: Test, retryMs = 100) {
  const first = await freshDatabase(t, 'postgres');
  if (!first) return null;
  const url = (first as PostgresDb).pool.options.connectionString!;
  const clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'));
  const node = async (db: PostgresDb) => {
    const listener = new PostgresListener({ url, retryMs, self: 'cache-test' });
    t.teardown(() => listener.close());
    await bounded('listening', 10_000, listener.listening(CACHED_TABLES));
    return { db, listener, accounts: new AccountRepo(db, clock, listener), apiKeys: new ApiKeyRepo(db, clock, listener) };
  };
  const secondDb = new PostgresDb({ url, poolSize: 2 });
  t.teardown(() => secondDb.close());
  return [await node(first as PostgresDb), await node(secondDb)] as const;
}

t.test('a key revoked on one node is refused on the other within one second', async (t) => {
  const nodes = await twoNodes(t);
  if (!nodes) return;
  const [a, b] = nodes;
  const account = await a.accounts.create({ name: 'acme', trunking: true, trunkCapacity: 5 });
  const { key, summary } = await a.apiKeys.create(account.id);
  t.equal((await b.apiKeys.authenticate(key))?.id, summary.id, 'node b authenticates (and remembers) the key');

  const started = performance.now();
  t.ok(await a.apiKeys.revoke(summary.id), 'revoked on node a');
  await until('node b to refuse the revoked key', 1_000, async () => (await b.apiKeys.authenticate(key)) === undefined, 10);
  t.ok(performance.now() - started < 1_000, `refused on node b after ${Math.round(performance.now() - started)} ms`);
});

t.test('an account changed on one node is read fresh on the other', async (t) => {
  const nodes = await twoNodes(t);
  if (!nodes) return;
  const [a, b] = nodes;
  const account = await a.accounts.create({ name: 'acme', trunking: true, trunkCapacity: 5 });
  t.equal((await b.accounts.get(account.id))?.trunking, true);
  await a.accounts.update(account.id, { trunking: false });
  await until('node b to see trunking off', 1_000, async () => (await b.accounts.get(account.id))?.trunking === false, 10);
  t.pass('seen');
});

t.test('a write rolled back is never announced', async (t) => {
  const nodes = await twoNodes(t);
  if (!nodes) return;
  const [a, b] = nodes;
  const account = await a.accounts.create({ name: 'acme', trunking: true, trunkCapacity: 5 });
  await b.accounts.get(account.id);
  const before = b.listener.version('accounts');
  await t.rejects(a.db.transaction(async (tx) => {
    await a.listener.announce(tx, 'accounts');
    throw new Error('roll back');
  }), /roll back/);
  // A notification committed afterwards proves the channel works and arrives after anything the rollback sent.
  await a.db.transaction((tx) => a.listener.announce(tx, 'api_keys'));
  await until('the later notification', 1_000, () => b.listener.version('api_keys') !== null && b.listener.version('accounts') === before
    && b.listener.version('api_keys')! > before!, 10);
  t.equal(b.listener.version('accounts'), before, 'no notification for the rolled-back write');
});

t.test('while the listening connection is down, reads go to the database', async (t) => {
  // Reconnecting waits a minute unless the test says otherwise, so the "down" state holds while it is examined.
  const nodes = await twoNodes(t, 60_000);
  if (!nodes) return;
  const [a, b] = nodes;
  const account = await a.accounts.create({ name: 'acme', trunking: true, trunkCapacity: 5 });
  const { key, summary } = await a.apiKeys.create(account.id);
  t.ok(await b.apiKeys.authenticate(key), 'remembered on node b');

  const down = once(b.listener, 'down');
  const pid = b.listener.backendPid!;
  await a.db.one('SELECT pg_terminate_backend(CAST(? AS INTEGER)) AS ok', [pid]);
  await bounded('node b to see its listener drop', 5_000, down);
  t.equal(b.listener.version('api_keys'), null, 'no version while down: nothing is served from memory');

  // Revoked without any announcement: only a database read can tell node b.
  await a.db.run('UPDATE api_keys SET revoked_at = ? WHERE id = ?', ['2026-11-25T12:00:01Z', summary.id]);
  t.equal(await b.apiKeys.authenticate(key), undefined, 'refused while the listener is down');
  await a.db.run('UPDATE api_keys SET revoked_at = NULL WHERE id = ?', [summary.id]);
  t.ok(await b.apiKeys.authenticate(key), 'read from the database again');
});

t.test('a listener reconnects by itself and listens again', async (t) => {
  const nodes = await twoNodes(t, 50);
  if (!nodes) return;
  const [a, b] = nodes;
  const account = await a.accounts.create({ name: 'acme', trunking: true, trunkCapacity: 5 });
  const { key, summary } = await a.apiKeys.create(account.id);
  const up = once(b.listener, 'up');
  await a.db.one('SELECT pg_terminate_backend(CAST(? AS INTEGER)) AS ok', [b.listener.backendPid!]);
  await bounded('node b to listen again', 10_000, up);
  await bounded('node b to listen on the tables again', 10_000, b.listener.listening(CACHED_TABLES));
  t.ok(await b.apiKeys.authenticate(key), 'remembered again');
  await a.apiKeys.revoke(summary.id);
  await until('node b to refuse the revoked key', 1_000, async () => (await b.apiKeys.authenticate(key)) === undefined, 10);
  t.pass('a revoke after the reconnection is seen');
});
