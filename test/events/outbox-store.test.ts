// The event outbox and webhook subscriptions on both backends: what an emit stores (and, in a caller's transaction,
// that it commits or rolls back with it), claims under leases, attempts logged, retries, paused subscriptions,
// the delivery log, redelivery, test events, pruning; one subscription per account and event type under
// concurrent creates; legacy header sealing done once by two nodes starting together.
import t from 'tap';
import type { FakeClock } from '../../src/clock.js';
import { SubscriptionExistsError } from '../../src/events/subscriptions.js';
import { sealLegacyHeaders } from '../../src/events/subscription-headers.js';
import { countTransactions, countStatements, freshDatabase, onEachBackend } from '../helpers/backends.js';
import { until } from '../helpers/waits.js';
import { CALL_DATA, outboxWorld } from './support/outbox-world.js';

const callStart = (accountId: number, callSid = 'CA1') => ({ type: 'call-start' as const, accountId, callSid, data: CALL_DATA });
const ok = (attempt: number, startedAt: string) => ({ attempt, startedAt, statusCode: 200, latencyMs: 3, error: null });
const count = async (db: Parameters<Parameters<typeof onEachBackend>[2]>[1], table: string) =>
  (await db.one<{ n: number }>(`SELECT COUNT(*) AS n FROM ${table}`))!.n;

onEachBackend(t, 'enqueue: the event and one delivery per active subscription, in the caller\'s transaction when given', async (t, db) => {
  const w = await outboxWorld(t, db);
  t.equal(await w.outbox.enqueue(callStart(w.account.id)), null, 'nobody listens: nothing stored');
  t.equal(await count(db, 'events'), 0);
  const sub = await w.subscribe('call-start');
  const queued = await w.outbox.enqueue(callStart(w.account.id));
  t.match(queued, { eventSid: /^EV/, deliveries: [{ id: Number, mode: 'async', timeoutMs: 5000 }] });
  t.same(await db.all('SELECT sid, event_type, call_sid FROM events'), [{ sid: queued!.eventSid, event_type: 'call-start', call_sid: 'CA1' }]);

  await t.rejects(db.transaction(async (tx) => {
    await w.outbox.enqueue(callStart(w.account.id, 'CA-rolled-back'), tx);
    throw new Error('the state change failed');
  }), /state change failed/);
  t.equal(await count(db, 'events'), 1, 'a rolled-back transaction leaves no event');
  t.equal(await count(db, 'webhook_deliveries'), 1, 'and no delivery');
  await db.transaction(async (tx) => { await w.outbox.enqueue(callStart(w.account.id, 'CA-committed'), tx); });
  t.equal(await count(db, 'webhook_deliveries'), 2, 'a committed one keeps both');

  await w.subscriptions.update(sub, { status: 'paused' });
  t.equal(await w.outbox.enqueue(callStart(w.account.id, 'CA-paused')), null, 'a paused subscription is not queued for');
});

onEachBackend(t, 'emits at once: an event and deliveries each; on PostgreSQL written together, and a batch the server refuses written one event at a time', async (t, db) => {
  const w = await outboxWorld(t, db);
  await w.subscribe('call-start');
  await w.subscribe('hangup');
  const statements = countStatements(db);
  const emits = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? callStart(w.account.id, `CA${i}`) : { type: 'hangup' as const, accountId: w.account.id, callSid: `CA${i}`, data: {} }));
  const queued = await Promise.all(emits.map((e) => w.outbox.enqueue(e)));
  // The first emit leaves at once, alone; the other 19 arrive while it is at the server and go in one statement.
  if (db.dialect === 'postgres') t.equal(statements(), 2, 'twenty emits written in two statements');
  const stored = await db.all<{ id: number; sid: string; event_type: string; call_sid: string }>(
    'SELECT d.id, e.sid, e.event_type, e.call_sid FROM webhook_deliveries d JOIN events e ON e.id = d.event_id');
  const byDelivery = new Map(stored.map((r) => [r.id, r]));
  t.same(queued.map((q) => q!.deliveries.map((d) => byDelivery.get(d.id))),
    emits.map((e, i) => [{ id: queued[i]!.deliveries[0]!.id, sid: queued[i]!.eventSid, event_type: e.type, call_sid: e.callSid }]),
    'each emit answered with its own event and its own delivery');

  if (db.dialect === 'postgres') {
    const all = db.all.bind(db);
    let refused = 0;
    db.all = <T>(sql: string, params?: Parameters<typeof db.all>[1]) => {
      if (String(params?.[0]).includes('CA-refused')) { refused++; return Promise.reject(new Error('refused by the server')); }
      return all<T>(sql, params);
    };
    const outcomes = await Promise.allSettled(['CA-alone', 'CA-refused', 'CA-with-it'].map((sid) => w.outbox.enqueue(callStart(w.account.id, sid))));
    db.all = all;
    t.same(outcomes.map((o) => o.status), ['fulfilled', 'rejected', 'fulfilled'], 'only the refused event\'s emit fails');
    t.equal(refused, 2, 'refused in its batch, then alone');
    t.same((await db.all<{ call_sid: string }>("SELECT call_sid FROM events WHERE call_sid LIKE 'CA-%' ORDER BY id")).map((r) => r.call_sid), ['CA-alone', 'CA-with-it']);

    // An emit without its transaction, from inside one, is refused to its caller alone (as its query would have
    // been), even while other emits wait to be written together.
    const others = ['CA-x', 'CA-y'].map((sid) => w.outbox.enqueue(callStart(w.account.id, sid)));
    await t.rejects(db.transaction(() => w.outbox.enqueue(callStart(w.account.id, 'CA-inside'))), /an emit without its transaction inside a transaction/);
    t.equal((await Promise.all(others)).filter((q) => q !== null).length, 2, 'the others are written');
  }
});

onEachBackend(t, 'claims: oldest due first, leased until the attempt\'s timeout has passed, logged, retried when due; paused subscriptions hold theirs', async (t, db) => {
  const w = await outboxWorld(t, db);
  const clock = w.clock as FakeClock;
  const sub = await w.subscribe('call-start', undefined, { timeoutMs: 1000 });
  const first = (await w.outbox.enqueue(callStart(w.account.id, 'CA1')))!.deliveries[0]!.id;
  await clock.advance(10);
  const second = (await w.outbox.enqueue(callStart(w.account.id, 'CA2')))!.deliveries[0]!.id;
  const claimed = await w.outbox.claimDue(10);
  t.same(claimed.map((c) => [c.id, c.attempt, c.event.callSid, c.subscription.sid]), [[first, 1, 'CA1', sub.sid], [second, 1, 'CA2', sub.sid]]);
  t.same(claimed[0]!.event.data, CALL_DATA);
  t.same(await w.outbox.claimDue(10), [], 'leased: not claimable again');
  t.equal(await w.outbox.claim(first), null, 'nor one by one');
  t.equal(await w.outbox.nextDueAt(), clock.now() + 1000 + 2000, 'the worker next looks when the leases run out');

  const startedAt = new Date(clock.now()).toISOString();
  await w.outbox.finishAttempt(first, ok(1, startedAt), { status: 'delivered', nextAttemptAt: null });
  await w.outbox.finishAttempt(second, { ...ok(1, startedAt), statusCode: 503, error: 'http_status: 503' }, { status: 'pending', nextAttemptAt: clock.now() + 30_000 });
  t.same(await w.outbox.claimDue(10), [], 'the retry is not due yet');
  t.equal(await w.outbox.nextDueAt(), clock.now() + 30_000);
  await clock.advance(30_000);
  const retry = await w.outbox.claimDue(10);
  t.same(retry.map((c) => [c.id, c.attempt]), [[second, 2]], 'the retry counts as attempt 2');

  // A lease that runs out (the worker died) hands the delivery out again, as the same attempt.
  await clock.advance(3000);
  t.same((await w.outbox.claimDue(10)).map((c) => [c.id, c.attempt]), [[second, 2]], 'redelivered after the lease, same attempt number');

  await clock.advance(3000);
  await w.subscriptions.update(sub, { status: 'paused' });
  t.same(await w.outbox.claimDue(10), [], 'paused: held');
  t.equal(await w.outbox.nextDueAt(), null);
  await w.subscriptions.update(sub, { status: 'active' });
  t.same((await w.outbox.claimDue(10)).map((c) => c.id), [second], 'resumed: due again');
  t.same((await db.all<{ attempt: number; status_code: number }>('SELECT attempt, status_code FROM webhook_delivery_attempts ORDER BY id')).map((a) => [a.attempt, a.status_code]),
    [[1, 200], [1, 503]], 'two attempts logged so far');
});

onEachBackend(t, 'a sync delivery queued for emitAndWait is its emitter\'s: no worker claims it before timeout_ms and the lease margin have passed', async (t, db) => {
  const w = await outboxWorld(t, db);
  const clock = w.clock as FakeClock;
  await w.subscribe('call-start', undefined, { timeoutMs: 1000, deliveryMode: 'sync' });
  const plain = (await w.outbox.enqueue(callStart(w.account.id, 'CA0')))!.deliveries[0]!;
  t.same((await w.outbox.claimDue(10)).map((c) => c.id), [plain.id], 'emitted without waiting, a sync delivery is the worker\'s at once');
  await w.outbox.finishAttempt(plain.id, ok(1, new Date(clock.now()).toISOString()), { status: 'delivered', nextAttemptAt: null });

  const held = (await w.outbox.enqueue(callStart(w.account.id, 'CA1'), undefined, true))!.deliveries[0]!;
  t.same(await w.outbox.claimDue(10), [], 'a worker woken by the emit does not take it');
  t.equal(await w.outbox.nextDueAt(), clock.now() + 1000 + 2000, 'the worker looks again once the emitter\'s wait is over');
  t.equal((await w.outbox.claim(held.id))?.id, held.id, 'the emitter takes it at once');
  t.equal(await w.outbox.claim(held.id), null, 'once');
  await w.outbox.finishAttempt(held.id, ok(1, new Date(clock.now()).toISOString()), { status: 'delivered', nextAttemptAt: null });

  const orphan = (await w.outbox.enqueue(callStart(w.account.id, 'CA2'), undefined, true))!.deliveries[0]!;
  await clock.advance(2999);
  t.same(await w.outbox.claimDue(10), [], 'still held');
  await clock.advance(1);
  t.same((await w.outbox.claimDue(10)).map((c) => c.id), [orphan.id], 'an emitter that never took it (it died) leaves it to the worker: at least once');
});

onEachBackend(t, 'an idle outbox costs the worker\'s poll one read, no transaction; claiming or logging is one transaction (SQLite), one statement (PostgreSQL)', async (t, db) => {
  const w = await outboxWorld(t, db);
  const clock = w.clock as FakeClock;
  await w.subscribe('call-start', undefined, { timeoutMs: 1000 });
  const transactions = countTransactions(db);
  const statements = countStatements(db);
  const slots = { active: new Map(), perSubscription: 16 };
  t.same(await w.outbox.settle([], 10, slots), [], 'nothing queued');
  t.same(await w.outbox.settle([], 0, slots), [], 'no free slot');
  t.equal(transactions(), 0, 'no transaction for either');
  t.equal(statements(), 1, 'one read for both (none with no free slot)');
  await w.outbox.enqueue(callStart(w.account.id));
  // On SQLite (in-process: statements cost no round trip) a claim reads whether anything is due, then opens a
  // transaction; on PostgreSQL each settle is one statement and no transaction.
  const sqlite = db.dialect === 'sqlite';
  const before = { transactions: transactions(), statements: statements() };
  const spent = () => ({ transactions: transactions() - before.transactions, statements: statements() - before.statements });
  const [claimed] = await w.outbox.settle([], 10, slots);
  t.same(spent(), sqlite ? { transactions: 1, statements: 1 } : { transactions: 0, statements: 1 }, 'a due delivery is claimed in one transaction or statement');
  t.same(await w.outbox.settle([], 10, slots), [], 'leased: nothing due');
  t.same(spent(), sqlite ? { transactions: 1, statements: 2 } : { transactions: 0, statements: 2 }, 'looking again: one read, no transaction');
  await w.outbox.settle([{ id: claimed!.id, record: ok(1, new Date(clock.now()).toISOString()), next: { status: 'delivered', nextAttemptAt: null } }], 10, slots);
  t.same(spent(), sqlite ? { transactions: 2, statements: 2 } : { transactions: 0, statements: 3 },
    'a finished attempt is logged in one transaction or statement, with nothing due to claim');
  t.equal((await db.one<{ status: string }>('SELECT status FROM webhook_deliveries WHERE id = ?', [claimed!.id]))?.status, 'delivered');
});

onEachBackend(t, 'settle: logs finished attempts and claims within the per-subscription limit, in one transaction', async (t, db) => {
  const w = await outboxWorld(t, db);
  const busy = await w.subscribe('call-start');
  const other = await w.subscribe('hangup');
  for (let i = 0; i < 4; i++) await w.outbox.enqueue(callStart(w.account.id, `CAb${i}`));
  for (let i = 0; i < 2; i++) await w.outbox.enqueue({ type: 'hangup', accountId: w.account.id, callSid: `CAo${i}`, data: {} });
  const firstTwo = await w.outbox.settle([], 2, { active: new Map(), perSubscription: 2 });
  t.same(firstTwo.map((c) => c.subscription.sid), [busy.sid, busy.sid]);
  const next = await w.outbox.settle([], 10, { active: new Map([[busy.id, 2]]), perSubscription: 2 });
  t.same(next.map((c) => c.subscription.sid), [other.sid, other.sid], 'the full subscription is passed over');
  const at = new Date(w.clock.now()).toISOString();
  const refill = await w.outbox.settle(firstTwo.map((c) => ({ id: c.id, record: ok(1, at), next: { status: 'delivered' as const, nextAttemptAt: null } })), 10,
    { active: new Map([[other.id, 2]]), perSubscription: 2 });
  t.equal(refill.length, 2, 'the freed slots refilled with the busy subscription\'s other two');
  t.same((await db.all<{ status: string }>("SELECT status FROM webhook_deliveries WHERE status = 'delivered'")).length, 2, 'logged in the same call');

  // The other subscription is deleted while its two attempts are in flight: their results find nothing to log.
  await w.subscriptions.delete(other);
  await w.outbox.settle([...next, ...refill].map((c, i) => ({
    id: c.id, record: ok(1, at), next: i === 0 ? { status: 'delivered' as const, nextAttemptAt: null } : { status: 'pending' as const, nextAttemptAt: w.clock.now() + 30_000 },
  })), 0, { active: new Map(), perSubscription: 2 });
  t.same((await db.all<{ status: string; n: number }>('SELECT status, COUNT(*) AS n FROM webhook_deliveries GROUP BY status ORDER BY status')).map((r) => [r.status, r.n]),
    [['delivered', 2], ['pending', 2]], 'the busy subscription\'s refills moved on; the deleted subscription\'s deliveries stay gone');
  t.equal(await count(db, 'webhook_delivery_attempts'), 4, 'attempts logged only for deliveries still there');
});

onEachBackend(t, 'delivery log newest first with attempts, pages; redeliver; test events; prune keeps pending', async (t, db) => {
  const w = await outboxWorld(t, db);
  const clock = w.clock as FakeClock;
  const sub = await w.subscribe('hangup');
  const ids: number[] = [];
  for (let i = 0; i < 3; i++) ids.push((await w.outbox.enqueue({ type: 'hangup', accountId: w.account.id, callSid: `CA${i}`, data: {} }))!.deliveries[0]!.id);
  const at = new Date(clock.now()).toISOString();
  await w.outbox.finishAttempt(ids[0]!, { ...ok(1, at), statusCode: 500, error: 'http_status: 500' }, { status: 'pending', nextAttemptAt: clock.now() + 1 });
  await w.outbox.finishAttempt(ids[0]!, ok(2, at), { status: 'delivered', nextAttemptAt: null });
  const page = await w.outbox.listForSubscription(sub.id, { beforeId: null, limit: 2 });
  t.same(page.map((d) => d.id), [ids[2], ids[1]], 'newest first');
  t.match(page[0], { status: 'pending', attemptCount: 0, nextAttemptAt: String, completedAt: null, attempts: [] });
  const [oldest] = await w.outbox.listForSubscription(sub.id, { beforeId: ids[1]!, limit: 2 });
  t.match(oldest, { id: ids[0], status: 'delivered', attemptCount: 2, nextAttemptAt: null, completedAt: String });
  t.same(oldest!.attempts.map((a) => [a.attempt, a.statusCode]), [[1, 500], [2, 200]]);

  const again = await w.outbox.redeliver(sub.id, oldest!.sid);
  t.match(again, { deliverySid: /^DL/ });
  const other = await w.subscribe('queued');
  t.equal(await w.outbox.redeliver(other.id, oldest!.sid), null, 'another subscription\'s delivery is not redelivered');
  const test = await w.outbox.enqueueTest(sub);
  const [newest] = await w.outbox.listForSubscription(sub.id, { beforeId: null, limit: 1 });
  t.match(newest, { sid: test.deliverySid, eventSid: test.eventSid, eventType: 'hangup', status: 'pending' });
  t.match(JSON.parse((await db.one<{ data: string }>('SELECT data FROM events WHERE sid = ?', [test.eventSid]))!.data), { test: true });

  await clock.advance(31 * 86_400_000);
  const delivered = (await w.outbox.claimDue(1))[0]!;
  await w.outbox.finishAttempt(delivered.id, ok(1, at), { status: 'delivered', nextAttemptAt: null });
  t.same(await w.outbox.prune(clock.now() - 30 * 86_400_000), { deliveries: 1, events: 0 }, 'only the history finished before the cutoff; its event is still redelivered');
  t.equal(await count(db, 'webhook_deliveries'), 4);
  await clock.advance(31 * 86_400_000);
  const prunedEvents = await w.outbox.prune(clock.now() - 30 * 86_400_000);
  t.same(prunedEvents, { deliveries: 1, events: 1 }, 'the second finished delivery goes, and its event with it (no delivery of it left)');
  t.equal(await count(db, 'webhook_deliveries'), 3, 'the three pending ones stay, however old');
});

onEachBackend(t, 'subscriptions: one per account and event type, even under concurrent creates; update, list, delete', async (t, db) => {
  const w = await outboxWorld(t, db);
  const results = await Promise.allSettled(Array.from({ length: 4 }, (_, i) => w.subscribe('queued', `https://hooks.example.com/${i}`)));
  const won = results.filter((r) => r.status === 'fulfilled');
  t.equal(won.length, 1, 'one create wins');
  const winner = (won[0] as PromiseFulfilledResult<Awaited<ReturnType<typeof w.subscribe>>>).value;
  for (const r of results.filter((x) => x.status === 'rejected')) {
    t.ok((r as PromiseRejectedResult).reason instanceof SubscriptionExistsError);
    t.equal(((r as PromiseRejectedResult).reason as SubscriptionExistsError).existingSid, winner.sid, 'the losers are told which one exists');
  }
  const updated = await w.subscriptions.update(winner, { timeoutMs: 1234, payloadTemplate: '{"a": {{event_sid}}}' });
  t.match(updated, { timeoutMs: 1234, payloadTemplate: '{"a": {{event_sid}}}', targetUrl: winner.targetUrl, status: 'active' });
  t.same(await w.subscriptions.update(updated, {}), updated, 'no change, no write');
  const more = [await w.subscribe('hangup'), await w.subscribe('call-start')];
  t.same((await w.subscriptions.listForAccount(w.account.id, { beforeId: null, limit: 2 })).map((s) => s.sid), [more[1]!.sid, more[0]!.sid]);
  t.same((await w.subscriptions.listForAccount(w.account.id, { beforeId: more[0]!.id, limit: 2 })).map((s) => s.sid), [winner.sid]);
  t.equal((await w.subscriptions.forEventType(w.account.id, 'hangup'))?.sid, more[0]!.sid);
  t.equal(await w.subscriptions.getForAccount(w.account.id + 1, winner.sid), undefined, 'another account does not see it');
  await w.outbox.enqueue({ type: 'queued', accountId: w.account.id, callSid: null, data: {} });
  await w.subscriptions.delete(winner);
  t.equal(await w.subscriptions.getForAccount(w.account.id, winner.sid), undefined);
  t.equal(await count(db, 'webhook_deliveries'), 0, 'its pending deliveries go with it');
});

onEachBackend(t, 'legacy clear header values are sealed once, even by two nodes starting together', async (t, db) => {
  const w = await outboxWorld(t, db);
  const sub = await w.subscribe('hangup');
  await db.run(`UPDATE webhook_subscriptions SET headers = ?, headers_enc = NULL WHERE id = ?`, [JSON.stringify({ Authorization: 'Bearer legacy-token-1234' }), sub.id]);
  const sealed = await Promise.all([sealLegacyHeaders(db, w.secrets), sealLegacyHeaders(db, w.secrets)]);
  t.equal(sealed[0] + sealed[1], 1, 'sealed once');
  const after = (await w.subscriptions.getForAccount(w.account.id, sub.sid))!;
  t.same(after.headers, { Authorization: '••••1234' });
  t.same(JSON.parse(w.secrets.open(after.headersSealed!)!), { Authorization: 'Bearer legacy-token-1234' });
  t.equal(await sealLegacyHeaders(db, w.secrets), 0, 'nothing left to seal');
});

t.test('an emit racing the deletion of its subscription neither fails nor leaves a delivery [postgres]', async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  const w = await outboxWorld(t, db);
  const sub = await w.subscribe('hangup');
  let commitDeletion!: () => void;
  const deletionHeld = new Promise<void>((resolve) => { commitDeletion = resolve; });
  let deleted!: () => void;
  const deleting = new Promise<void>((resolve) => { deleted = resolve; });
  const deletion = db.transaction(async (tx) => {
    await tx.run('DELETE FROM webhook_subscriptions WHERE id = ?', [sub.id]);
    deleted();
    await deletionHeld;
  });
  await deleting;
  // The state change and its event, while the deletion is uncommitted: the emit's read of the subscription waits.
  const change = db.transaction(async (tx) => {
    await tx.run("UPDATE accounts SET name = 'changed' WHERE id = ?", [w.account.id]);
    return w.outbox.enqueue({ type: 'hangup', accountId: w.account.id, callSid: 'CA1', data: {} }, tx);
  });
  await until('the emit to wait on the deletion', 5_000, async () =>
    (await db.one<{ n: number }>("SELECT COUNT(*) AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"))!.n > 0);
  commitDeletion();
  await deletion;
  t.equal(await change, null, 'the subscription is gone: nothing queued, and no error');
  t.equal((await w.accounts.get(w.account.id))?.name, 'changed', 'the state change committed');
  t.equal(await count(db, 'webhook_deliveries'), 0);
});
