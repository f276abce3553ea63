// The store's read caches (API keys, accounts, trunks): a change is seen by the next read, whether this process
// made it through a repository or another process committed it; nothing rolled back is remembered. Runs on the
// backend the run selects: two stores on one SQLite file (another process's commit seen at the next turn, through
// data_version) or on one PostgreSQL database (seen within one second, through LISTEN/NOTIFY).
import t from 'tap';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { openStore, type Store } from '../../src/repositories.js';
import { FakeClock } from '../../src/clock.js';
import { tempDir } from '../helpers/harness.js';
import { harnessDatabase, sqliteConnection, STORE_VAR } from '../helpers/backends.js';
import { until } from '../helpers/waits.js';

async function twoProcesses(t: { teardown(fn: () => unknown): void }): Promise<[Store, Store]> {
  const dir = tempDir(t);
  const clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'));
  const database = await harnessDatabase(t);
  const server = await openStore(dir, clock, database);
  const cli = await openStore(dir, clock, database);
  t.teardown(async () => { await server.close(); await cli.close(); });
  return [server, cli];
}

/** Waits until `store` sees what another process committed: at the next turn on SQLite, within a second on PostgreSQL. */
async function seenByOtherProcess(store: Store, what: string, check: () => Promise<boolean>): Promise<void> {
  if (store.sql.dialect === 'sqlite') await nextTurn();
  else await until(what, 1_000, check);
}

function trunkOf(store: Store, accountId: number) {
  return store.trunks.create({
    accountId, capacity: 5, endpointName: `ep-${accountId}`, sipPasswordSealed: 'sealed', transport: 'tcp',
    settings: {
      label: 'PBX', client_ref: null, sip_domain: null, voice_webhook_url: null, voice_webhook_method: 'POST',
      voice_fallback_url: null, voice_fallback_method: 'POST', voice_refer_url: null, voice_refer_method: 'POST', cli_lookup_url: null,
      cli_lookup_method: 'POST', default_caller_id: null, status_callback_url: null, status_callback_events: 'completed',
      hangup_url: null, dual_channel_recording: false, allowed_caller_ids: ['+15551230000'],
    },
  });
}

t.test('a key revoked by another process stops authenticating on the next turn', async (t) => {
  const [server, cli] = await twoProcesses(t);
  const account = await server.accounts.create({ name: 'a', trunking: true, trunkCapacity: 5 });
  const { key, summary } = await server.apiKeys.create(account.id);
  t.equal((await server.apiKeys.authenticate(key))?.id, summary.id);
  t.ok(await cli.apiKeys.revoke(summary.id));
  await seenByOtherProcess(server, 'the revocation', async () => (await server.apiKeys.authenticate(key)) === undefined);
  t.equal(await server.apiKeys.authenticate(key), undefined);
});

t.test('a key revoked in this process stops at once', async (t) => {
  const [server] = await twoProcesses(t);
  const account = await server.accounts.create({ name: 'a', trunking: true, trunkCapacity: 5 });
  const { key, summary } = await server.apiKeys.create(account.id);
  t.ok(await server.apiKeys.authenticate(key));
  t.ok(await server.apiKeys.revoke(summary.id));
  t.equal(await server.apiKeys.authenticate(key), undefined);
});

// Counted with SQLite's total_changes(); the rule is the repository's, the same on PostgreSQL.
const onPostgres = process.env[STORE_VAR] === 'postgres';
t.test('authenticating is one write a minute at most, not one per request', { skip: onPostgres && 'counts writes with SQLite\'s total_changes()' }, async (t) => {
  const [server] = await twoProcesses(t);
  const account = await server.accounts.create({ name: 'a', trunking: true, trunkCapacity: 5 });
  const { key } = await server.apiKeys.create(account.id);
  const changes = () => sqliteConnection(server).prepare('SELECT total_changes() AS n').get() as { n: number };
  const before = changes().n;
  for (let i = 0; i < 100; i++) t.ok(await server.apiKeys.authenticate(key));
  t.equal(changes().n - before, 1, 'last_used_at written once');
});

t.test('trunk and account changes are seen by the next read, from either process', async (t) => {
  const [server, cli] = await twoProcesses(t);
  const account = await server.accounts.create({ name: 'a', trunking: true, trunkCapacity: 5 });
  const trunk = await trunkOf(server, account.id);
  t.same((await server.trunks.listForAccount(account.id)).map((x) => x.label), ['PBX']);
  t.equal((await server.trunks.getForAccount(account.id, trunk.id))?.status, 'pending');

  await server.trunks.updateSettings(trunk.id, { label: 'Front desk' });
  t.equal((await server.trunks.getForAccount(account.id, trunk.id))?.label, 'Front desk', 'own write: at once');
  t.same((await server.trunks.listForAccount(account.id)).map((x) => x.label), ['Front desk']);

  await cli.trunks.transition(trunk.id, ['pending'], 'active');
  await cli.accounts.update(account.id, { trunking: false });
  await seenByOtherProcess(server, 'the trunk and account changes', async () =>
    (await server.trunks.getByEndpointName(trunk.endpoint_name))?.status === 'active' && (await server.accounts.get(account.id))?.trunking === false);
  t.equal((await server.trunks.getByEndpointName(trunk.endpoint_name))?.status, 'active', 'other process: next turn');
  t.equal((await server.accounts.get(account.id))?.trunking, false);
  t.equal(await server.trunks.getForAccount(account.id + 1, trunk.id), undefined, 'another account never sees it');
});

t.test('a read asked while a transaction holds the connection never sees, nor remembers, what it rolls back', async (t) => {
  const [server] = await twoProcesses(t);
  const account = await server.accounts.create({ name: 'a', trunking: true, trunkCapacity: 5 });
  const trunk = await trunkOf(server, account.id);
  t.equal((await server.trunks.getById(trunk.id))?.label, 'PBX', 'remembered before the transaction');
  let written!: () => void;
  const inside = new Promise<void>((resolve) => { written = resolve; });
  const rolledBack = server.sql.transaction(async (tx) => {
    await tx.run('UPDATE trunks SET label = ? WHERE id = ?', ['never', trunk.id]);
    t.equal((await tx.one<{ label: string }>('SELECT label FROM trunks WHERE id = ?', [trunk.id]))?.label, 'never', 'the transaction sees its own write');
    written();
    await nextTurn();
    throw new Error('roll back');
  });
  await inside;
  const during = server.trunks.getById(trunk.id);
  await t.rejects(rolledBack, /roll back/);
  t.equal((await during)?.label, 'PBX', 'a read asked during the transaction gets the committed row');
  t.equal((await server.trunks.getById(trunk.id))?.label, 'PBX', 'and afterwards too');
});

t.test('shared values are frozen, so no caller can change another caller\'s copy', async (t) => {
  const [server] = await twoProcesses(t);
  const account = await server.accounts.create({ name: 'a', trunking: true, trunkCapacity: 5 });
  await trunkOf(server, account.id);
  // Values are shared (and frozen) once cached: on SQLite at once, on PostgreSQL once the LISTEN on trunks, asked
  // by the first read, is in place (until then each read is the database's and a copy of its own).
  await until('the trunks read cache in use', 10_000, async () =>
    (await server.trunks.listForAccount(account.id)) === (await server.trunks.listForAccount(account.id)));
  const [trunk] = await server.trunks.listForAccount(account.id);
  t.throws(() => { (trunk as { label: string | null }).label = 'x'; }, TypeError);
  t.throws(() => { trunk!.allowed_caller_ids!.push('+1'); }, TypeError);
  const list = await server.trunks.listForAccount(account.id);
  t.throws(() => { (list as unknown[]).pop(); }, TypeError);
  t.equal((await server.trunks.listForAccount(account.id))[0], trunk, 'the same object until the trunk changes');
});
