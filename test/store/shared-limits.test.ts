// The limits that several control planes on one PostgreSQL database must share (issue 24): the calls-per-second cap
// per account, failed API-key attempts per source, and dashboard sign-in delays per (email, source). Each behaves the
// same on both backends (memory on SQLite, the database on PostgreSQL); on PostgreSQL, two "nodes" (each its own
// connection pool and limiter on one database) share one limit.
import t, { type Test } from 'tap';
import { FakeClock } from '../../src/clock.js';
import { cpsCapFor } from '../../src/calls/shared-cps-limiter.js';
import { authThrottleFor } from '../../src/http/shared-auth-throttle.js';
import { PostgresSignInDelays, signInDelaysFor } from '../../src/users/shared-sign-in-delays.js';
import { PostgresDb } from '../../src/store/postgres-db.js';
import { migratePostgres } from '../../src/store/postgres-schema.js';
import type { SqlDb } from '../../src/store/sql.js';
import { onEachBackend } from '../helpers/backends.js';
import { createTestDatabase, postgresOrSkip } from '../helpers/postgres.js';

const T0 = Date.UTC(2026, 0, 1, 12);

/** Two pools on one fresh, migrated PostgreSQL database: two control planes' connections. Null when skipped. */
async function twoNodes(t: Test): Promise<[PostgresDb, PostgresDb] | null> {
  const server = await postgresOrSkip(t);
  if (!server) return null;
  const database = await createTestDatabase(server);
  const nodes = [new PostgresDb({ url: database.url, poolSize: 4 }), new PostgresDb({ url: database.url, poolSize: 4 })] as const;
  t.teardown(async () => { await Promise.all(nodes.map((n) => n.close())); await database.drop(); });
  await migratePostgres(nodes[0].pool);
  return [nodes[0], nodes[1]];
}

/** `db` with its queries counted, to show which calls reach the database. */
function counting(db: SqlDb): { db: SqlDb; queries: () => number } {
  let n = 0;
  const counted = new Proxy(db, {
    get(target, prop, receiver) {
      const value = Reflect.get(target, prop, receiver);
      if (typeof value !== 'function') return value;
      return (...args: unknown[]) => {
        if (['one', 'all', 'run', 'transaction'].includes(String(prop))) n++;
        return value.apply(target, args);
      };
    },
  });
  return { db: counted, queries: () => n };
}

onEachBackend(t, 'CPS: a burst gets exactly the cap, a refusal says when the oldest call leaves, the window slides', async (t, db) => {
  const clock = new FakeClock(T0);
  const cps = cpsCapFor(db, clock);
  const burst = await Promise.all(Array.from({ length: 8 }, () => cps.take(1, 3)));
  t.equal(burst.filter((s) => s.ok).length, 3, 'exactly the cap');
  t.same(burst.find((s) => s.ok), { ok: true, at: T0 }, 'admitted at the clock');
  t.same(burst.find((s) => !s.ok), { ok: false, retryAfterSeconds: 1, resetAt: Math.ceil((T0 + 1000) / 1000) });
  t.ok((await cps.take(2, 1)).ok, 'another account has its own window');
  await clock.advance(999);
  t.notOk((await cps.take(1, 3)).ok, 'still inside the second');
  await clock.advance(1);
  t.same(await cps.take(1, 3), { ok: true, at: T0 + 1000 }, 'the burst left the window');
  await clock.advance(500);
  t.ok((await cps.take(1, 3)).ok);
  t.ok((await cps.take(1, 3)).ok);
  t.match(await cps.take(1, 3), { ok: false, retryAfterSeconds: 1, resetAt: Math.ceil((T0 + 2000) / 1000) }, 'sliding: three in the last second again, the oldest 500 ms ago');
});

t.test('CPS on PostgreSQL: two control planes share one account\'s cap', async (t) => {
  const nodes = await twoNodes(t);
  if (!nodes) return;
  const clock = new FakeClock(T0);
  const [a, b] = nodes.map((db) => cpsCapFor(db, clock));
  t.ok((await a!.take(1, 2)).ok, 'one call on node A');
  t.ok((await b!.take(1, 2)).ok, 'one call on node B');
  t.match(await a!.take(1, 2), { ok: false, retryAfterSeconds: 1 }, 'the third is refused on A');
  t.match(await b!.take(1, 2), { ok: false, retryAfterSeconds: 1 }, 'and on B');

  await clock.advance(1000);
  const mixed = await Promise.all(Array.from({ length: 12 }, (_, i) => (i % 2 ? a! : b!).take(1, 5)));
  t.equal(mixed.filter((s) => s.ok).length, 5, '12 concurrent takes across both nodes, cap 5: exactly 5 admitted');
  const rows = await nodes[0].one<{ n: number }>('SELECT COUNT(*) AS n FROM cps_admissions WHERE account_id = ?', [1]);
  t.equal(rows!.n, 5, 'expired admissions were deleted: at most the cap is kept per account');

  // The cost of a take on PostgreSQL (loopback, a busy 2-core machine): a transaction with the lock and one statement.
  const timings: number[] = [];
  for (let i = 0; i < 200; i++) {
    await clock.advance(20);
    const started = performance.now();
    await a!.take(2, 100);
    timings.push(performance.now() - started);
  }
  timings.sort((x, y) => x - y);
  t.comment(`CPS take on PostgreSQL: median ${timings[100]!.toFixed(2)} ms, p95 ${timings[190]!.toFixed(2)} ms`);
});

onEachBackend(t, 'auth throttle: failures past the limit wait for the window; known keys stay usable; bounded', async (t, db) => {
  const clock = new FakeClock(T0);
  const throttle = authThrottleFor(db, clock, { limit: 3, windowMs: 10_000, maxEntries: 3 });
  t.equal(await throttle.admit('10.0.0.1', 7), 0, 'a valid key within the limit is admitted (and known from there)');
  t.same([await throttle.fail('10.0.0.1'), await throttle.fail('10.0.0.1'), await throttle.fail('10.0.0.1')], [0, 0, 0], 'three failures counted');
  await clock.advance(4_000);
  t.equal(await throttle.fail('10.0.0.1'), 6, 'the fourth waits until the window that opened at the first failure ends');
  t.equal(await throttle.admit('10.0.0.1', 8), 6, 'a valid key never seen from there waits too');
  t.equal(await throttle.admit('10.0.0.1', 7), 0, 'the known key still works');
  t.equal(await throttle.admit('10.0.0.2', 8), 0, 'another source is not affected');
  await clock.advance(6_000);
  t.equal(await throttle.fail('10.0.0.1'), 0, 'the window is over: a failure is counted again');
  t.equal(await throttle.admit('10.0.0.1', 8), 0);

  const small = authThrottleFor(db, clock, { limit: 1, windowMs: 60_000, maxEntries: 3 });
  for (const source of ['a', 'b', 'c', 'd']) {
    await clock.advance(1);
    t.equal(await small.fail(source), 0, `${source}: its one failure counted`);
  }
  t.equal(await small.fail('d'), 60, 'd is over its limit');
  t.equal(await small.fail('a'), 0, 'the oldest source was forgotten to make room (a starts again)');
  if (db.dialect === 'postgres') {
    const windows = await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM auth_failure_windows');
    t.equal(windows!.n, 3, 'at most maxEntries windows are kept');
  }
});

t.test('auth throttle on PostgreSQL: failures on one control plane count on the other; known keys are known on both', async (t) => {
  const nodes = await twoNodes(t);
  if (!nodes) return;
  const clock = new FakeClock(T0);
  const opts = { limit: 3, windowMs: 60_000 };
  const a = authThrottleFor(nodes[0], clock, opts);
  const countedB = counting(nodes[1]);
  const b = authThrottleFor(countedB.db, clock, opts);
  t.equal(await a.admit('198.51.100.7', 7), 0, 'key 7 works from the address on node A');
  t.same([await a.fail('198.51.100.7'), await b.fail('198.51.100.7'), await a.fail('198.51.100.7')], [0, 0, 0], 'failures on A, B, A');
  t.equal(await b.fail('198.51.100.7'), 60, 'the fourth, on B, is throttled');
  t.equal(await a.fail('198.51.100.7'), 60, 'and on A');
  t.equal(await b.admit('198.51.100.7', 8), 60, 'a valid key never seen from there is not tried on B');
  t.equal(await b.admit('198.51.100.7', 7), 0, 'key 7, known from A, works on B');

  const before = countedB.queries();
  for (let i = 0; i < 10; i++) t.equal(await b.admit('198.51.100.7', 7), 0);
  t.equal(countedB.queries(), before, 'a key admitted lately from the address costs no database round trip');
  await clock.advance(60_000);
  t.equal(await b.admit('198.51.100.7', 7), 0);
  t.ok(countedB.queries() > before, 'after a minute its row is renewed for the other nodes');

  const concurrent = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a : b).fail('203.0.113.5')));
  t.equal(concurrent.filter((wait) => wait === 0).length, 3, '10 concurrent failures across both nodes: exactly the limit answered as plain failures');
});

onEachBackend(t, 'sign-in delays: free failures, doubling waits, case-blind emails, cleared by a success, forgotten after a day', async (t, db) => {
  const clock = new FakeClock(T0);
  const delays = signInDelaysFor(db, clock);
  const waits: number[] = [];
  for (let i = 1; i <= 7; i++) waits.push(await delays.recordFailure(i % 2 ? 'Ann@Example.com' : ' ann@example.com', '10.0.0.1'));
  t.same(waits, [0, 0, 0, 0, 2, 4, 8], 'four free failures, then 2, 4, 8 s (email ignoring case and spaces)');
  t.equal(await delays.waitFor('ann@example.com', '10.0.0.1'), 8);
  t.equal(await delays.waitFor('ann@example.com', '10.0.0.2'), 0, 'another address is not affected');
  await clock.advance(7_500);
  t.equal(await delays.waitFor('ANN@example.com', '10.0.0.1'), 1, 'whole seconds, rounded up');
  await clock.advance(500);
  t.equal(await delays.waitFor('ann@example.com', '10.0.0.1'), 0);
  t.equal(await delays.recordFailure('ann@example.com', '10.0.0.1'), 16);
  await delays.clear('ann@example.com', '10.0.0.1');
  t.equal(await delays.waitFor('ann@example.com', '10.0.0.1'), 0, 'a success clears the pair');
  t.equal(await delays.recordFailure('ann@example.com', '10.0.0.1'), 0, 'and it starts from zero');
  for (let i = 0; i < 5; i++) await delays.recordFailure('bob@example.com', '10.0.0.1');
  await clock.advance(24 * 3600_000);
  t.equal(await delays.waitFor('bob@example.com', '10.0.0.1'), 0);
  t.equal(await delays.recordFailure('bob@example.com', '10.0.0.1'), 0, 'a pair quiet for a day starts from zero');
});

t.test('sign-in delays on PostgreSQL: failures on one control plane make the pair wait on the other', async (t) => {
  const nodes = await twoNodes(t);
  if (!nodes) return;
  const clock = new FakeClock(T0);
  const [a, b] = nodes.map((db) => signInDelaysFor(db, clock));
  for (let i = 0; i < 3; i++) t.equal(await a!.recordFailure('ann@example.com', '10.0.0.1'), 0);
  t.equal(await b!.recordFailure('ann@example.com', '10.0.0.1'), 0, 'the fourth failure, on B');
  t.equal(await b!.recordFailure('ann@example.com', '10.0.0.1'), 2, 'the fifth, on B, counts A\'s: wait 2 s');
  t.equal(await a!.waitFor('ann@example.com', '10.0.0.1'), 2, 'A makes the pair wait too');
  await b!.clear('ann@example.com', '10.0.0.1');
  t.equal(await a!.waitFor('ann@example.com', '10.0.0.1'), 0, 'a success on B clears it on A');

  await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 ? a! : b!).recordFailure('bob@example.com', '10.0.0.1')));
  t.equal(await a!.waitFor('bob@example.com', '10.0.0.1'), 64, '10 concurrent failures across both nodes all count (64 s after the tenth)');
});

t.test('shared limit tables stay bounded on PostgreSQL: the stalest sign-in pairs and known keys go first', async (t) => {
  const nodes = await twoNodes(t);
  if (!nodes) return;
  const [db] = nodes;
  const clock = new FakeClock(T0);
  const delays = new PostgresSignInDelays(db, clock, 3);
  for (const email of ['a@x.io', 'b@x.io', 'c@x.io', 'd@x.io']) {
    await clock.advance(1);
    await delays.recordFailure(email, 's');
  }
  const pairs = await db.all<{ email: string }>('SELECT email FROM sign_in_failures ORDER BY email');
  t.same(pairs.map((p) => p.email), ['b@x.io', 'c@x.io', 'd@x.io'], 'the stalest pair was dropped');
  const throttle = authThrottleFor(db, clock, { limit: 1, windowMs: 60_000, maxEntries: 3 });
  for (const id of [1, 2, 3, 4]) {
    await clock.advance(1);
    await throttle.admit('s', id);
  }
  const keys = await db.all<{ key_id: number }>('SELECT key_id FROM auth_known_keys ORDER BY key_id');
  t.same(keys.map((k) => k.key_id), [2, 3, 4], 'known keys are bounded the same way');
  await clock.advance(24 * 3600_000);
  await throttle.admit('s', 5);
  t.same((await db.all<{ key_id: number }>('SELECT key_id FROM auth_known_keys')).map((k) => k.key_id), [5], 'and forgotten after a day');
});
