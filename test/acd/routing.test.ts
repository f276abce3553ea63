// The ACD router. Examples first, on SQLite and PostgreSQL (longest idle, reservation, miss and break, abandon,
// wrap-up), then a property test on the store the run selects (a SQLite file, or a PostgreSQL database with
// RINGBASE_TEST_STORE=postgres): random arrivals, offers, rings, answers, misses, hang-ups, call
// ends, wrap-ups, agent status changes and restarts (the store closed and opened again), checked after every step
// against a model of who should hold what: no agent ever holds two calls, no caller is offered to two agents or
// lost, and every offer goes to the longest-idle available agent whose seat can ring. Several routers deciding at
// once against one PostgreSQL database: routing-concurrency.test.ts.
import t from 'tap';
import fc from 'fast-check';
import { openStore, type Store } from '../../src/repositories.js';
import { AcdRouter, type Offer } from '../../src/acd/routing.js';
import { tempDir } from '../helpers/harness.js';
import { countTransactions, emptyDatabase, harnessDatabase, onEachBackend } from '../helpers/backends.js';
import { acdWorld, StepClock } from './support/acd-world.js';
import { checkInvariants } from './support/invariants.js';

const everySeat = () => true;

onEachBackend(t, 'offers go to the longest-idle agent; a reservation holds both sides once', async (t, db) => {
  const w = await acdWorld(db, { agents: 3 });
  const r = w.router();
  t.equal(await r.reserveNext(w.queue.id, everySeat), null, 'nobody waiting: no offer');
  t.ok(await r.enqueue('CA1', w.queue.id));
  t.notOk(await r.enqueue('CA1', w.queue.id), 'a caller waits once');
  await r.enqueue('CA2', w.queue.id);
  const first = (await r.reserveNext(w.queue.id, everySeat))!;
  t.match(first, { callSid: 'CA1', agentId: w.agentIds[0] }, 'first in line to the agent idle longest');
  const second = (await r.reserveNext(w.queue.id, async (a) => a.id !== w.agentIds[1]))!;
  t.match(second, { callSid: 'CA2', agentId: w.agentIds[2] }, 'an agent whose seat cannot ring is passed over');
  t.equal(await r.reserveNext(w.queue.id, everySeat), null, 'nobody else waits un-offered');
  t.ok(await r.ringing(first));
  t.ok(await r.answered(first));
  t.notOk(await r.answered(first), 'answered once');
  t.same((await w.queues.waiting(w.queue)).map((m) => m.callSid), ['CA2'], 'the answered caller left the queue');
  t.ok(await r.callEnded(first.agentId, 'CA1', 30));
  t.match(await w.agents.getForAccount(w.accountId, 'AG0'), { activity: 'wrap-up' });
  w.clock.advance(29_999);
  t.same(await r.endDueWrapUps(), [], 'wrap-up lasts its seconds');
  w.clock.advance(1);
  t.same(await r.endDueWrapUps(), [first.agentId], 'and ends when they have passed');
  t.match(await w.agents.getForAccount(w.accountId, 'AG0'), { activity: 'idle', currentCallSid: null });
  await r.enqueue('CA3', w.queue.id);
  t.match(await r.reserveNext(w.queue.id, everySeat), { callSid: 'CA3', agentId: w.agentIds[1] }, 'after wrap-up an agent is idle from then: another agent has waited longer');
});

onEachBackend(t, 'reconcile undoes what ended calls left behind, leaves live calls alone, and reads without a transaction when there is nothing', async (t, db) => {
  const w = await acdWorld(db, { agents: 2 });
  const r = w.router();
  const call = (sid: string, status: string) => db.run(`INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, created_at)
    VALUES (?, ?, 'inbound', '+15550100001', '+15550100002', ?, ?)`, [sid, w.accountId, status, new Date(w.clock.now()).toISOString()]);
  const transactions = countTransactions(db);
  t.same(await r.reconcile(() => false), [], 'nothing to undo');
  t.equal(transactions(), 0, 'nor a transaction opened for it');
  for (const [sid, status] of [['CA1', 'in-progress'], ['CA2', 'in-progress'], ['CA3', 'in-progress']]) { await call(sid!, status!); await r.enqueue(sid!, w.queue.id); }
  const offer = (await r.reserveNext(w.queue.id, everySeat))!;
  await r.ringing(offer);
  await r.answered(offer);
  const before = transactions();
  t.same(await r.reconcile(() => false), [], 'every call still up: nothing to undo');
  t.equal(transactions(), before, 'no transaction');
  await db.run("UPDATE calls SET status = 'completed' WHERE sid IN ('CA1', 'CA2', 'CA3')");
  t.same(await r.reconcile((sid) => sid === 'CA3'), [w.queue.id], 'the queue touched');
  t.equal(transactions(), before + 1, 'the repair is one transaction');
  t.same((await w.queues.waiting(w.queue)).map((m) => m.callSid), ['CA3'], 'the ended caller left the queue; the live one stays');
  t.match(await w.agents.getForAccount(w.accountId, 'AG0'), { activity: 'wrap-up' }, 'the agent on the ended call goes to wrap-up');
  t.same(await r.reconcile((sid) => sid === 'CA3'), [], 'done once');
  t.equal(transactions(), before + 1, 'and no transaction for the live call left');
});

onEachBackend(t, 'callers entering in the same millisecond are offered in the order they came; positions say so', async (t, db) => {
  const w = await acdWorld(db, { agents: 1 });
  const r = w.router();
  for (const sid of ['CAc', 'CAa', 'CAb']) await r.enqueue(sid, w.queue.id);
  t.same([await r.position('CAc'), await r.position('CAa'), await r.position('CAb'), await r.position('CAx')], [1, 2, 3, null]);
  t.same((await w.queues.waiting(w.queue)).map((m) => m.callSid), ['CAc', 'CAa', 'CAb']);
  t.match(await r.reserveNext(w.queue.id, everySeat, (sid) => sid !== 'CAc'), { callSid: 'CAa' }, 'a caller another process carries is passed over');
});

onEachBackend(t, 'missed offers: the caller is first in line again; max_no_answer misses in a row put the agent on break', async (t, db) => {
  const w = await acdWorld(db, { agents: 1 });
  const r = w.router();
  await r.enqueue('CA1', w.queue.id);
  const offer = (await r.reserveNext(w.queue.id, everySeat))!;
  await r.ringing(offer);
  t.notOk(await r.missed(offer, 2), 'one miss');
  const again = (await r.reserveNext(w.queue.id, everySeat))!;
  t.equal(again.callSid, 'CA1', 'the same caller, first in line again');
  t.ok(await r.missed(again, 2), 'the second miss in a row: break');
  t.match(await w.agents.getForAccount(w.accountId, 'AG0'), { status: 'break', breakReason: 'missed 2 offered calls in a row', activity: 'idle' });
  t.equal(await r.reserveNext(w.queue.id, everySeat), null, 'an agent on break gets no offer');
});

onEachBackend(t, 'a caller who hangs up leaves the queue and frees the agent it was offered to; a withdrawn offer counts no miss', async (t, db) => {
  const w = await acdWorld(db, { agents: 1 });
  const r = w.router();
  await r.enqueue('CA1', w.queue.id);
  const offer = (await r.reserveNext(w.queue.id, everySeat))!;
  await r.ringing(offer);
  t.same(await r.leave('CA1'), { queueId: w.queue.id, withdrawnFrom: offer.agentId });
  t.match(await w.agents.getForAccount(w.accountId, 'AG0'), { activity: 'idle', currentCallSid: null });
  t.notOk(await r.answered(offer), 'a withdrawn offer cannot be answered');
  t.equal(await r.leave('CA1'), null, 'gone already');
  await r.enqueue('CA2', w.queue.id);
  const next = (await r.reserveNext(w.queue.id, everySeat))!;
  await r.withdraw(next);
  t.match(await db.one('SELECT offered_to, (SELECT missed_in_a_row FROM acd_agents) AS missed FROM acd_members'), { offered_to: null, missed: 0 }, 'first in line again, no miss');
});

type Op =
  | { op: 'arrive' } | { op: 'reserve'; down: number[] } | { op: 'ring'; i: number } | { op: 'answer'; i: number } | { op: 'miss'; i: number }
  | { op: 'hangup'; i: number } | { op: 'end'; i: number } | { op: 'wrapped'; i: number } | { op: 'status'; i: number; to: 'available' | 'break' | 'offline' }
  | { op: 'restart' } | { op: 'tick'; ms: number };

const ops: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ op: 'arrive' as const }), weight: 4 },
  { arbitrary: fc.record({ op: fc.constant('reserve' as const), down: fc.array(fc.nat(5), { maxLength: 2 }) }), weight: 5 },
  ...(['ring', 'answer'] as const).map((op) => ({ arbitrary: fc.record({ op: fc.constant(op), i: fc.nat(20) }), weight: 4 })),
  ...(['miss', 'hangup', 'end', 'wrapped'] as const).map((op) => ({ arbitrary: fc.record({ op: fc.constant(op), i: fc.nat(20) }), weight: 2 })),
  { arbitrary: fc.record({ op: fc.constant('status' as const), i: fc.nat(5), to: fc.constantFrom('available' as const, 'break' as const, 'offline' as const) }), weight: 1 },
  { arbitrary: fc.constant({ op: 'restart' as const }), weight: 1 },
  { arbitrary: fc.record({ op: fc.constant('tick' as const), ms: fc.integer({ min: 1, max: 5_000 }) }), weight: 2 },
);

/**
 * The world on a store that can be closed and opened again (a restart), on the backend the run selects: the SQLite
 * file or a PostgreSQL database of its own. One database serves every random script: reset() empties it and sets
 * the world up again (making a database per script took 270 ms of each script's 350 on PostgreSQL). dispose()
 * closes it and, on PostgreSQL, drops the database.
 */
async function restartableWorld(t: { teardown(fn: () => unknown): void }) {
  const dir = tempDir(t);
  const drops: (() => unknown)[] = [];
  const database = await harnessDatabase({ teardown: (fn) => drops.push(fn) });
  let clock = new StepClock();
  let store = await openStore(dir, clock, database);
  let world = await acdWorld(store.sql, { agents: 6, clock });
  return {
    get clock(): StepClock { return clock; },
    get store(): Store { return store; },
    get queueId(): number { return world.queue.id; },
    get agentIds(): number[] { return world.agentIds; },
    router: () => new AcdRouter(store.sql, clock),
    async restart() { await store.close(); store = await openStore(dir, clock, database); },
    /** A new store on the emptied database (no cached rows survive), the world as new, the clock at its start. */
    async reset() {
      await store.close();
      clock = new StepClock();
      store = await openStore(dir, clock, database);
      await emptyDatabase(store.sql);
      world = await acdWorld(store.sql, { agents: 6, clock });
    },
    async dispose() { await store.close(); for (const drop of drops) await drop(); },
  };
}

t.test('property: random traffic never double-books, loses or double-offers, and offers go longest-idle first', async (t) => {
  let runs = 0;
  const seen = { offers: 0, answers: 0, misses: 0, restarts: 0 };
  const w = await restartableWorld(t);
  await fc.assert(fc.asyncProperty(fc.array(ops, { minLength: 20, maxLength: 80, size: 'max' }), async (script) => {
    if (runs++ > 0) await w.reset();
    const queueId = w.queueId;
    let r = w.router();
    // The model: each caller's state, each agent's state.
    const callers = new Map<string, 'waiting' | 'offered' | 'bridged' | 'gone'>();
    const offers: Offer[] = [];
    const rung = new Set<Offer>();
    const bridged = new Map<number, string>(); // agent → call, while busy
    let next = 0;
    const agentRow = async (id: number) => (await w.store.sql.one<{ status: string; activity: string; idle_since: number; current_call_sid: string | null }>(
      'SELECT * FROM acd_agents WHERE id = ?', [id]))!;
    for (const step of script) {
      switch (step.op) {
        case 'arrive': { const sid = `CA${next++}`; await r.enqueue(sid, queueId); callers.set(sid, 'waiting'); break; }
        case 'reserve': {
          const down = new Set(step.down.map((i) => w.agentIds[i % w.agentIds.length]!));
          const rows = [];
          for (const id of w.agentIds) rows.push({ id, ...(await agentRow(id)) });
          const eligible = rows.filter((a) => a.status === 'available' && a.activity === 'idle' && !down.has(a.id))
            .sort((a, b) => a.idle_since - b.idle_since || a.id - b.id);
          const firstInLine = [...callers].find(([, s]) => s === 'waiting')?.[0];
          const offer = await r.reserveNext(queueId, (a) => !down.has(a.id));
          if (!firstInLine || eligible.length === 0) { if (offer !== null) throw new Error('an offer without a waiting caller and a free agent'); break; }
          if (!offer || offer.callSid !== firstInLine) throw new Error(`expected ${firstInLine} to be offered, got ${offer?.callSid}`);
          if (offer.agentId !== eligible[0]!.id) throw new Error(`offer to agent ${offer.agentId}, longest idle is ${eligible[0]!.id}`);
          callers.set(offer.callSid, 'offered');
          offers.push(offer);
          seen.offers++;
          break;
        }
        case 'ring': { const o = offers.filter((x) => !rung.has(x))[step.i % Math.max(1, offers.length)]; if (o && (await r.ringing(o))) rung.add(o); break; }
        case 'answer': {
          const ringing = offers.filter((x) => rung.has(x));
          const o = ringing[step.i % Math.max(1, ringing.length)];
          if (o && (await r.answered(o))) { seen.answers++; callers.set(o.callSid, 'bridged'); bridged.set(o.agentId, o.callSid); offers.splice(offers.indexOf(o), 1); }
          break;
        }
        case 'miss': {
          const o = offers[step.i % Math.max(1, offers.length)];
          if (o) { seen.misses++; await r.missed(o, 2); callers.set(o.callSid, 'waiting'); offers.splice(offers.indexOf(o), 1); }
          break;
        }
        case 'hangup': {
          const waiting = [...callers].filter(([, s]) => s === 'waiting' || s === 'offered');
          const pick = waiting[step.i % Math.max(1, waiting.length)];
          if (!pick) break;
          await r.leave(pick[0]);
          callers.set(pick[0], 'gone');
          const o = offers.find((x) => x.callSid === pick[0]);
          if (o) offers.splice(offers.indexOf(o), 1);
          break;
        }
        case 'end': {
          const busy = [...bridged];
          const pick = busy[step.i % Math.max(1, busy.length)];
          if (pick && (await r.callEnded(pick[0], pick[1]))) { callers.set(pick[1], 'gone'); bridged.delete(pick[0]); }
          break;
        }
        case 'wrapped': await r.wrapUpDone(w.agentIds[step.i % w.agentIds.length]!); break;
        case 'status': await w.store.sql.run('UPDATE acd_agents SET status = ? WHERE id = ?', [step.to, w.agentIds[step.i % w.agentIds.length]!]); break;
        case 'restart': seen.restarts++; await w.restart(); r = w.router(); break;
        case 'tick': w.clock.advance(step.ms); break;
      }
      await checkInvariants(w.store.sql, callers);
    }
  }), { numRuns: 150 }).finally(() => w.dispose());
  t.ok(seen.offers > 100 && seen.answers > 20 && seen.misses > 20 && seen.restarts > 20, `${runs} random scripts of 20 to 80 steps held every invariant (${JSON.stringify(seen)})`);
});
