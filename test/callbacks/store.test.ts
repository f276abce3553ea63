// The callback outbox's store on both backends, and several workers on separate pools to one PostgreSQL database:
// callbacks of one stream go out one at a time and in order, none twice, none lost (FOR UPDATE SKIP LOCKED; the
// head-of-stream rule keeps the order across workers).
import t from 'tap';
import pino from 'pino';
import { FakeClock, systemClock } from '../../src/clock.js';
import { CallbackStore } from '../../src/callbacks/store.js';
import { CallbackOutbox } from '../../src/callbacks/worker.js';
import type { OutboundResponse } from '../../src/net/index.js';
import type { PostgresDb } from '../../src/store/postgres-db.js';
import type { SqlDb } from '../../src/store/sql.js';
import { countTransactions, freshDatabase, onEachBackend } from '../helpers/backends.js';
import { until } from '../helpers/waits.js';
import { peerPools } from '../events/support/outbox-world.js';

const DAY = 86_400_000;
const LEASE = 7_000;

async function accountIn(db: SqlDb): Promise<number> {
  return (await db.one<{ id: number }>("INSERT INTO accounts (name, trunk_capacity, created_at) VALUES ('cb', 1, '2026-11-25T12:00:00Z') RETURNING id"))!.id;
}

const callback = (accountId: number, stream: string, n: number) =>
  ({ accountId, stream, url: `https://hooks.example.com/${stream}`, method: 'POST' as const, fields: { Stream: stream, SequenceNumber: String(n) } });

onEachBackend(t, 'callback store: queued with the change, heads of streams claimed in order under a lease, retried, given up, pruned', async (t, db) => {
  const clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'));
  const store = new CallbackStore(db, clock);
  const accountId = await accountIn(db);
  await t.rejects(db.transaction(async (tx) => {
    await store.enqueue(callback(accountId, 'X', 1), tx);
    throw new Error('the change failed');
  }), /change failed/);
  t.equal((await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM callback_outbox'))!.n, 0, 'rolled back with the change');

  const [a1, a2] = [await store.enqueue(callback(accountId, 'A', 1)), await store.enqueue(callback(accountId, 'A', 2))];
  const b1 = await db.transaction((tx) => store.enqueue(callback(accountId, 'B', 1), tx));
  const claimed = await store.claimDue(10, LEASE);
  t.same(claimed.map((c) => [c.sid, c.attempt]), [[a1, 1], [b1, 1]], 'the head of each stream, oldest first; a2 waits behind a1');
  t.same(claimed[0]!.fields, { Stream: 'A', SequenceNumber: '1' });
  t.same(await store.claimDue(10, LEASE), [], 'leased rows are not claimed again, nor what waits behind them');
  t.equal(await store.nextDueAt(), clock.now() + LEASE, 'next look: when the leases run out');

  await store.finish(claimed[0]!.id, { status: 'pending', nextAttemptAt: clock.now() + 30_000, statusCode: 500, error: 'the receiver answered 500' });
  await store.finish(claimed[1]!.id, { status: 'delivered', nextAttemptAt: null, statusCode: 204, error: null });
  t.same(await store.claimDue(10, LEASE), [], 'a1 waits for its retry, and a2 behind it');
  t.equal(await store.nextDueAt(), clock.now() + 30_000);
  await clock.advance(30_000);
  const retry = await store.claimDue(10, LEASE);
  t.same(retry.map((c) => [c.sid, c.attempt]), [[a1, 2]], 'the retry, counted as attempt 2');
  await store.finish(retry[0]!.id, { status: 'exhausted', nextAttemptAt: null, statusCode: 503, error: 'the receiver answered 503' });
  t.same((await store.claimDue(10, LEASE)).map((c) => c.sid), [a2], 'a row given up no longer holds its stream');

  await clock.advance(LEASE);
  t.same((await store.claimDue(10, LEASE)).map((c) => [c.sid, c.attempt]), [[a2, 2]], 'a lease that ran out (a dead worker) hands the row out again');
  await clock.advance(31 * DAY);
  t.same(await store.prune(clock.now() - 30 * DAY), { callbacks: 2 }, 'delivered and exhausted rows past retention');
  t.same((await db.all<{ sid: string }>('SELECT sid FROM callback_outbox')).map((r) => r.sid), [a2], 'the pending row stays');
});

onEachBackend(t, 'an idle outbox costs the worker\'s poll one read, no transaction', async (t, db) => {
  const clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'));
  const store = new CallbackStore(db, clock);
  const accountId = await accountIn(db);
  const transactions = countTransactions(db);
  t.same(await store.claimDue(10, LEASE), [], 'empty');
  const [claimed] = await db.transaction(async (tx) => [await store.enqueue(callback(accountId, 'A', 1), tx), await store.enqueue(callback(accountId, 'A', 2), tx)]);
  t.same((await store.claimDue(10, LEASE)).map((c) => c.sid), [claimed], 'the head of the stream');
  const after = transactions();
  t.same(await store.claimDue(10, LEASE), [], 'leased, and its successor waits behind it');
  t.equal(transactions(), after, 'nothing claimable: no transaction');
  t.equal(after, 2, 'only the enqueue and the claim opened one');
});

const WORKERS = 3;
const STREAMS = 12;
const PER_STREAM = 10;
const ok: OutboundResponse = { status: 204, headers: {}, body: Buffer.alloc(0), latencyMs: 1, remoteAddress: '127.0.0.1' };

t.test(`${WORKERS} callback workers on separate PostgreSQL pools: each callback once, in order per stream, none lost`, async (t) => {
  const db = await freshDatabase(t, 'postgres') as PostgresDb | null;
  if (!db) return;
  const clock = systemClock();
  const accountId = await accountIn(db);
  const received = new Map<string, number[]>();
  const inFlight = new Map<string, number>();
  let mostInFlightPerStream = 0;
  const http = {
    async send(req: { payload: unknown }): Promise<OutboundResponse> {
      const body = (req.payload as { body: Record<string, string> }).body;
      const stream = body.Stream!;
      inFlight.set(stream, (inFlight.get(stream) ?? 0) + 1);
      mostInFlightPerStream = Math.max(mostInFlightPerStream, inFlight.get(stream)!);
      await new Promise((r) => setTimeout(r, Math.random() * 4));
      received.set(stream, [...received.get(stream) ?? [], Number(body.SequenceNumber)]);
      inFlight.set(stream, inFlight.get(stream)! - 1);
      return ok;
    },
  };
  const workers = peerPools(t, db, WORKERS).map((peer) =>
    new CallbackOutbox({ store: new CallbackStore(peer, clock), http, clock, log: pino({ level: 'silent' }) }));
  t.teardown(() => Promise.all(workers.map((w) => w.stop())));
  const queue = new CallbackStore(db, clock);
  // Half queued before the workers start, the rest through the workers while they deliver, in transactions.
  for (let n = 1; n <= PER_STREAM / 2; n++) for (let s = 0; s < STREAMS; s++) await queue.enqueue(callback(accountId, `CF${s}`, n));
  for (const w of workers) w.start();
  for (let n = PER_STREAM / 2 + 1; n <= PER_STREAM; n++) {
    const w = workers[n % WORKERS]!;
    await db.transaction(async (tx) => { for (let s = 0; s < STREAMS; s++) await w.enqueue(callback(accountId, `CF${s}`, n), tx); });
  }
  let delivered = 0;
  await until(() => `all ${STREAMS * PER_STREAM} delivered (${delivered} so far)`, 30_000, async () => {
    delivered = (await db.one<{ n: number }>("SELECT COUNT(*) AS n FROM callback_outbox WHERE status = 'delivered'"))!.n;
    return delivered === STREAMS * PER_STREAM;
  }, 20);
  const expected = Array.from({ length: PER_STREAM }, (_, i) => i + 1);
  for (let s = 0; s < STREAMS; s++) t.same(received.get(`CF${s}`), expected, `stream CF${s}: each once, in order`);
  t.equal(mostInFlightPerStream, 1, 'never two callbacks of one stream in flight at once');
  t.same(await db.all('SELECT attempt_count FROM callback_outbox WHERE attempt_count <> 1'), [], 'each claimed once');
});
