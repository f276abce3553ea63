// Timeline entries noted by running calls are written together once per event-loop turn (src/store/timeline-writer.ts),
// on SQLite and PostgreSQL: one INSERT for a turn's entries, each call's entries in the order noted across turns, a
// refused entry taking no other with it, and timelineFlushed() waiting for everything noted.
import t from 'tap';
import { onEachBackend } from '../helpers/backends.js';
import { FakeClock } from '../../src/clock.js';
import { CallRepo } from '../../src/store/calls.js';
import type { SqlDb } from '../../src/store/sql.js';

/** The database as the repo sees it, counting the timeline INSERTs it is sent. */
function counting(db: SqlDb): { db: SqlDb; inserts: () => number } {
  let inserts = 0;
  const counted: SqlDb = {
    dialect: db.dialect,
    one: (sql, params) => db.one(sql, params),
    all: (sql, params) => db.all(sql, params),
    run: (sql, params) => {
      if (sql.startsWith('INSERT INTO call_timeline')) inserts++;
      return db.run(sql, params);
    },
    afterCommit: (fn) => db.afterCommit(fn),
    transaction: (fn) => db.transaction(fn),
    close: () => db.close(),
  };
  return { db: counted, inserts: () => inserts };
}

async function withCalls(db: SqlDb, sids: string[]): Promise<void> {
  const account = (await db.one<{ id: number }>("INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES ('a', 0, 0, '2026-01-01') RETURNING id"))!.id;
  const calls = new CallRepo(db, new FakeClock(Date.parse('2026-03-10T12:00:00Z')), 'node-a');
  for (const sid of sids) await calls.create({ sid, accountId: account, direction: 'inbound', from: '+15557770001', to: '+15550001000', status: 'ringing' });
}

const kinds = async (calls: CallRepo, sid: string) => (await calls.timeline(sid)).map((e) => e.kind);

onEachBackend(t, "a turn's entries are one INSERT; each call's entries keep the order noted across turns", async (t, db) => {
  await withCalls(db, ['CA1', 'CA2']);
  const { db: seen, inserts } = counting(db);
  const calls = new CallRepo(seen, new FakeClock(Date.parse('2026-03-10T12:00:01Z')), 'node-a');
  const firstTurn = [calls.noteTimeline('CA1', 'one', { n: 1 }), calls.noteTimeline('CA2', 'one', {}), calls.noteTimeline('CA1', 'two', { n: 2 })];
  await Promise.all(firstTurn);
  t.equal(inserts(), 1, 'three entries of one turn: one INSERT');
  const later = [calls.noteTimeline('CA1', 'three', {})];
  await new Promise((r) => setImmediate(r));
  later.push(calls.noteTimeline('CA1', 'four', {}), calls.noteTimeline('CA2', 'two', {}));
  await Promise.all(later);
  t.same(await kinds(calls, 'CA1'), ['one', 'two', 'three', 'four']);
  t.same(await kinds(calls, 'CA2'), ['one', 'two']);
  t.same((await calls.timeline('CA1'))[0]!.detail, { n: 1 });
  t.equal((await calls.timeline('CA1'))[0]!.at, '2026-03-10T12:00:01.000Z', 'stamped when noted');
});

onEachBackend(t, 'more entries than one INSERT holds are all stored, in order', async (t, db) => {
  await withCalls(db, ['CA1']);
  const { db: seen, inserts } = counting(db);
  const calls = new CallRepo(seen, new FakeClock(0), 'node-a');
  await Promise.all(Array.from({ length: 150 }, (_, i) => calls.noteTimeline('CA1', `k${i}`, {})));
  t.same(await kinds(calls, 'CA1'), Array.from({ length: 150 }, (_, i) => `k${i}`));
  t.equal(inserts(), 3, '150 entries in INSERTs of at most 64');
});

onEachBackend(t, 'an entry the database refuses takes no other entry of its turn with it', async (t, db) => {
  await withCalls(db, ['CA1']);
  const calls = new CallRepo(db, new FakeClock(0), 'node-a');
  // A call row that does not exist: the foreign key refuses the entry.
  const outcomes = await Promise.allSettled([
    calls.noteTimeline('CA1', 'before', {}), calls.noteTimeline('CA-missing', 'lost', {}), calls.noteTimeline('CA1', 'after', {}),
  ]);
  t.same(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled']);
  t.same(await kinds(calls, 'CA1'), ['before', 'after']);
});

onEachBackend(t, 'timelineFlushed() resolves once everything noted is stored', async (t, db) => {
  await withCalls(db, ['CA1']);
  const calls = new CallRepo(db, new FakeClock(0), 'node-a');
  for (let i = 0; i < 5; i++) void calls.noteTimeline('CA1', `k${i}`, {});
  await calls.timelineFlushed();
  t.equal((await calls.timeline('CA1')).length, 5);
});

onEachBackend(t, 'a read sees every entry noted before it and is not held by entries noted after it', async (t, db) => {
  await withCalls(db, ['CA1']);
  const calls = new CallRepo(db, new FakeClock(0), 'node-a');
  void calls.noteTimeline('CA1', 'first', {});
  let answered = false;
  const read = calls.timeline('CA1').finally(() => { answered = true; });
  // Entries keep coming, one each turn, until the read answers (2 s at most): a read waiting for every entry would
  // not answer while they come.
  const until = Date.now() + 2_000;
  for (let n = 0; !answered && Date.now() < until; n++) {
    void calls.noteTimeline('CA1', `later${n}`, {});
    await new Promise((r) => setImmediate(r));
  }
  t.ok(answered, 'the read answered while entries kept coming');
  t.equal((await read)[0]?.kind, 'first', 'with the entry noted before it');
  await calls.timelineFlushed();
});

onEachBackend(t, "an entry noted by a transaction's code is written outside it, once it allows", async (t, db) => {
  await withCalls(db, ['CA1']);
  const calls = new CallRepo(db, new FakeClock(0), 'node-a');
  let noted!: Promise<void>;
  await db.transaction(async (tx) => {
    noted = calls.noteTimeline('CA1', 'inside', {});
    // Open past the turn its batch is written in: that write must not count as a query of the transaction's code.
    await new Promise((r) => setTimeout(r, 20));
    await tx.one('SELECT 1 AS one');
  });
  await noted;
  t.same(await kinds(calls, 'CA1'), ['inside']);
});
