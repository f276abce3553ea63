// The SqlDb port behaves the same on both backends: placeholders, results, changes, transactions that commit or
// roll back, and queries that wait for (SQLite) or run beside (PostgreSQL) a transaction without entering it.
import t from 'tap';
import { rowLock } from '../../src/store/sql.js';
import { onEachBackend } from '../helpers/backends.js';

const ACCOUNT = 'INSERT INTO accounts (name, trunk_capacity, created_at) VALUES (?, ?, ?) RETURNING id';

onEachBackend(t, 'one, all and run with ? placeholders; quoted ? and -- comments are left alone', async (t, db) => {
  const inserted = await db.one<{ id: number }>(ACCOUNT, ['a?b', 3, '2026-01-01T00:00:00Z']);
  t.equal(typeof inserted?.id, 'number', 'RETURNING gives the new id as a number');
  const row = await db.one<{ name: string; literal: string; n: number }>(
    "SELECT name, 'it''s ?' AS literal, trunk_capacity + ? AS n FROM accounts WHERE id = ? -- a ? in a comment\n", [2, inserted!.id],
  );
  t.same(row, { name: 'a?b', literal: "it's ?", n: 5 });
  t.same(await db.all('SELECT id FROM accounts WHERE id = ?', [-1]), [], 'no rows');
  t.equal(await db.one('SELECT id FROM accounts WHERE id = ?', [-1]), undefined);
  const count = await db.one<{ n: number }>('SELECT COUNT(*) AS n, SUM(trunk_capacity) AS total FROM accounts');
  t.same(count, { n: 1, total: 3 }, 'counts and sums are numbers');
  t.same(await db.run('UPDATE accounts SET trunk_capacity = ? WHERE id >= ?', [4, 0]), { changes: 1 });
});

onEachBackend(t, 'a transaction commits, or rolls back when its function throws', async (t, db) => {
  await db.transaction(async (tx) => { await tx.one(ACCOUNT, ['kept', 1, 'x']); });
  await t.rejects(db.transaction(async (tx) => {
    await tx.one(ACCOUNT, ['dropped', 1, 'x']);
    throw new Error('changed my mind');
  }), /changed my mind/);
  t.same((await db.all<{ name: string }>('SELECT name FROM accounts ORDER BY id')).map((r) => r.name), ['kept']);
});

onEachBackend(t, 'a query through the database from inside its own transaction is refused, not deadlocked', async (t, db) => {
  await t.rejects(db.transaction(async () => { await db.one('SELECT 1 AS one'); }), /inside a transaction of the same database/);
  await t.rejects(db.transaction(async () => { await db.transaction(async () => undefined); }), /inside a transaction/);
  t.same(await db.one('SELECT 1 AS one'), { one: 1 }, 'the database still answers afterwards');
});

onEachBackend(t, 'overlapping transactions: one ending leaves the other refusing; with none open, queries run anywhere', async (t, db) => {
  let firstEnded!: () => void;
  const ended = new Promise<void>((r) => { firstEnded = r; });
  let later: (() => Promise<unknown>) | undefined;
  const first = db.transaction(async (tx) => {
    await tx.one('SELECT 1 AS one');
    // Scheduled inside, run after this transaction ended: by then it no longer counts.
    later = () => db.one('SELECT 1 AS one');
  }).then(firstEnded);
  const second = db.transaction(async () => {
    await ended;
    await db.one('SELECT 1 AS one');
  });
  await first;
  await t.rejects(second, /inside a transaction of the same database/, 'the second still refuses after the first ended');
  t.same(await later!(), { one: 1 }, 'work the first scheduled runs once it ended');
  await t.rejects(db.transaction(async () => { await db.one('SELECT 1 AS one'); }), /inside a transaction/, 'and the next transaction refuses again');
  t.same(await db.one('SELECT 1 AS one'), { one: 1 });
});

onEachBackend(t, 'a query from elsewhere during a transaction never sees its uncommitted writes', async (t, db) => {
  let written!: () => void;
  // Chained outside the transaction, so the query runs in the caller's context, as another request's would.
  const outside = new Promise<void>((r) => { written = r; }).then(() => db.one<{ n: number }>('SELECT COUNT(*) AS n FROM accounts'));
  await db.transaction(async (tx) => {
    await tx.one(ACCOUNT, ['inside', 1, 'x']);
    written();
    // Let the other query start (SQLite: it waits for this transaction; PostgreSQL: it runs on another connection).
    for (let i = 0; i < 5; i++) await new Promise((r) => setImmediate(r));
  });
  const seen = (await outside)!.n;
  t.ok(db.dialect === 'sqlite' ? seen === 1 : seen === 0 || seen === 1, `the other query saw a consistent count (${seen})`);
});

onEachBackend(t, 'afterCommit runs once the transaction committed, never after a rollback, at once outside one', async (t, db) => {
  const seen: string[] = [];
  let counted: Promise<{ n: number } | undefined> | undefined;
  await db.transaction(async (tx) => {
    await tx.one(ACCOUNT, ['kept', 1, 'x']);
    tx.afterCommit(() => {
      seen.push('hook');
      // Committed: another query through the database sees the row.
      counted = db.one<{ n: number }>('SELECT COUNT(*) AS n FROM accounts');
    });
    seen.push('body done');
  });
  seen.push('returned');
  t.same(seen, ['body done', 'hook', 'returned'], 'after the body, before the transaction resolves to its caller');
  t.same(await counted, { n: 1 }, 'the hook could use the database and saw the committed row');
  let rolledBack = false;
  await t.rejects(db.transaction(async (tx) => {
    tx.afterCommit(() => { rolledBack = true; });
    throw new Error('changed my mind');
  }), /changed my mind/);
  t.notOk(rolledBack, 'a rolled-back transaction runs none');
  let outside = false;
  db.afterCommit(() => { outside = true; });
  t.ok(outside, 'outside a transaction it runs at once');
});

onEachBackend(t, 'work a transaction schedules for after it ends may use the database', async (t, db) => {
  const { later } = await db.transaction(async () => ({
    later: new Promise((resolve, reject) => setTimeout(() => db.one('SELECT 1 AS one').then(resolve, reject), 20)),
  }));
  t.same(await later, { one: 1 });
});

onEachBackend(t, 'concurrent transactions claiming one row: exactly one wins (conditional update)', async (t, db) => {
  const { id } = (await db.one<{ id: number }>(ACCOUNT, ['claim', 0, 'x']))!;
  const claim = (who: number) => db.transaction(async (tx) => {
    const row = await tx.one<{ trunk_capacity: number }>(`SELECT trunk_capacity FROM accounts WHERE id = ?${rowLock(tx)}`, [id]);
    if (row?.trunk_capacity !== 0) return false;
    return (await tx.run('UPDATE accounts SET trunk_capacity = ? WHERE id = ? AND trunk_capacity = 0', [who, id])).changes === 1;
  });
  const wins = await Promise.all([1, 2, 3, 4, 5, 6].map(claim));
  t.equal(wins.filter(Boolean).length, 1, 'one claim won');
});
