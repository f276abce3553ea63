// Scheduled callbacks on SQLite and PostgreSQL: claimed once when due (and the hook runs in the claim's
// transaction), canceled only while scheduled, retried until the third attempt fails, and put back to scheduled
// when a process died dialing. Dialers claiming at once against one PostgreSQL database each take a due callback
// once, and never wait on each other's claims.
import t from 'tap';
import { FakeClock } from '../../src/clock.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../src/acd/queues.js';
import { CallbackRepo, type OpenCallback } from '../../src/acd/callbacks.js';
import { QueueRepo } from '../../src/acd/queues.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import type { SqlDb } from '../../src/store/sql.js';
import { countTransactions, onEachBackend } from '../helpers/backends.js';

async function world(db: SqlDb, clock = new FakeClock()) {
  const at = new Date(clock.now()).toISOString();
  const { id: accountId } = (await db.one<{ id: number }>('INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES (?, 1, 20, ?) RETURNING id', ['acd', at]))!;
  const queue = await new QueueRepo(db, clock).create(accountId, 'QU0', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'callbacks' });
  const callbacks = new CallbackRepo(db, clock, 'dialer');
  const make = (sid: string, dueInMs: number) => callbacks.create({
    sid, accountId, queueId: queue.id, to: '+15550100003', from: '+15550100002', dueAt: clock.now() + dueInMs, attributes: { name: 'Ada' }, leadSid: null,
  });
  return { clock, callbacks, make, at };
}

const none = async () => undefined;

onEachBackend(t, 'due callbacks are claimed once, oldest due first, with the hook in the same transaction', async (t, db) => {
  const { clock, callbacks, make } = await world(db);
  await make('CB2', 2_000);
  await make('CB1', 1_000);
  await make('CB3', 60_000);
  const seen: string[] = [];
  const hook = async (_tx: unknown, c: OpenCallback) => { seen.push(c.sid); };
  t.same(await callbacks.claimDue(10, hook), [], 'nothing due yet');
  await clock.advance(2_000);
  const claimed = await callbacks.claimDue(10, hook);
  t.same(claimed.map((c) => [c.sid, c.status, c.attempts]), [['CB1', 'dialing', 1], ['CB2', 'dialing', 1]]);
  t.same(seen, ['CB1', 'CB2']);
  t.same(await callbacks.claimDue(10, none), [], 'a claimed callback is not claimed again');
  t.notOk(await callbacks.cancel('CB1'), 'dialing: too late to cancel');
  t.ok(await callbacks.cancel('CB3'), 'scheduled: canceled');
  t.equal((await callbacks.get('CB3'))!.status, 'canceled');
  t.same((await callbacks.get('CB1'))!.attributes, { name: 'Ada' });
  await make('CB4', 0);
  await t.rejects(callbacks.claimDue(10, async () => { throw new Error('the hook failed'); }), /the hook failed/);
  t.equal((await callbacks.get('CB4'))!.status, 'scheduled', 'a claim whose hook failed is rolled back');
});

onEachBackend(t, 'the sweep\'s claim when nothing is due is one read, no transaction', async (t, db) => {
  const { clock, callbacks, make } = await world(db);
  await make('CB1', 5_000);
  const transactions = countTransactions(db);
  for (let i = 0; i < 4; i++) {
    t.same(await callbacks.claimDue(10, none), [], `second ${i + 1}: nothing due`);
    await clock.advance(1_000);
  }
  t.equal(transactions(), 0, 'no transaction opened while nothing is due');
  await clock.advance(1_000);
  t.same((await callbacks.claimDue(10, none)).map((c) => c.sid), ['CB1'], 'claimed once due');
  t.equal(transactions(), 1, 'the claim itself is one transaction');
});

onEachBackend(t, "a failed attempt is scheduled again; the last one fails for good; a dead process's dialing is scheduled again", async (t, db) => {
  const { clock, callbacks, make, at } = await world(db);
  await make('CB1', 0);
  await callbacks.claimDue(1, none);
  await callbacks.attemptFailed('CB1', 'no answer', clock.now() + 300_000);
  t.match(await callbacks.get('CB1'), { status: 'scheduled', attempts: 1, lastError: 'no answer', dueAt: clock.now() + 300_000 });
  await clock.advance(300_000);
  await callbacks.claimDue(1, none);
  t.equal((await callbacks.requeueDialing(() => false)).length, 0, 'an attempt this process runs is left alone');
  const survivor = new CallbackRepo(db, clock, 'survivor');
  await db.run("INSERT INTO instances (id, host, pid, started_at, beat_at) VALUES ('dialer', 'h1', 1, ?, ?)", [at, at]);
  t.equal((await survivor.requeueDialing(() => false)).length, 0, "another live process's attempt is left to it");
  await db.run("UPDATE instances SET reconciled_by = 'survivor' WHERE id = 'dialer'");
  t.equal((await survivor.requeueDialing(() => false)).length, 1, "once that process is found dead (claimed by a survivor), its attempt is scheduled again");
  t.match(await callbacks.get('CB1'), { status: 'scheduled', attempts: 2 });
  await callbacks.claimDue(1, (tx, c) => callbacks.attemptFailed(c.sid, 'busy', null, tx));
  t.match(await callbacks.get('CB1'), { status: 'failed', attempts: 3, lastError: 'busy' });
});

onEachBackend(t, 'several dialers claiming at once take each due callback once', async (t, db) => {
  if (!(db instanceof PostgresDb)) return; // SQLite has one writer: its claims cannot overlap.
  const { clock, make } = await world(db);
  for (let i = 0; i < 60; i++) await make(`CB${i}`, 0);
  await clock.advance(1);
  // Each dialer its own pool, as another control plane would have; every claim holds its rows a moment.
  const dialers = Array.from({ length: 4 }, () => new PostgresDb({ url: (db.pool.options as { connectionString: string }).connectionString, poolSize: 2 }));
  t.teardown(() => Promise.all(dialers.map((d) => d.close())));
  const claimed = await Promise.all(dialers.map(async (d, i) => {
    const repo = new CallbackRepo(d, clock, `dialer-${i}`);
    const mine: string[] = [];
    for (let round = 0; round < 10; round++) {
      for (const c of await repo.claimDue(5, async () => { await new Promise((r) => setTimeout(r, 2)); })) mine.push(c.sid);
    }
    return mine;
  }));
  const all = claimed.flat();
  t.equal(all.length, 60, 'every due callback claimed');
  t.equal(new Set(all).size, 60, 'none claimed twice');
  t.ok(claimed.filter((c) => c.length > 0).length > 1, `the claims were shared out (${claimed.map((c) => c.length).join(', ')})`);
});
