// The ACD router on a real SQLite file. Examples first (longest idle, reservation, miss and break, abandon, wrap-up),
// then a property test: random arrivals, offers, rings, answers, misses, hang-ups, call ends, wrap-ups, agent
// status changes and restarts (the store closed and opened again), checked after every step against a model of
// who should hold what: no agent ever holds two calls, no caller is offered to two agents or lost, and every offer
// goes to the longest-idle available agent whose seat can ring.
import t from 'tap';
import fc from 'fast-check';
import type { Clock, TimerHandle } from '../../src/clock.js';
import { openStore, type Store } from '../../src/store/index.js';
import { AcdRouter, type Offer } from '../../src/acd/routing.js';
import { tempDir } from '../helpers/harness.js';
import { TRUNK_SETTING_DEFAULTS } from '../../src/trunks/service.js';

/** Time that moves only when told, synchronously (the router reads the time; it sets no timers). */
class StepClock implements Clock {
  #now = Date.UTC(2026, 0, 1);
  now(): number { return this.#now; }
  advance(ms: number): void { this.#now += ms; }
  setTimeout(): TimerHandle { throw new Error('the ACD router sets no timers'); }
  clearTimeout(): void {}
}

function world(t: { teardown(fn: () => unknown): void }, agents = 3) {
  const dir = tempDir(t);
  const clock = new StepClock();
  let store = openStore(dir, clock);
  t.teardown(() => store.close());
  const account = store.accounts.create({ name: 'acd', trunking: true, trunkCapacity: 20 });
  const trunk = store.trunks.create({ accountId: account.id, capacity: 20, endpointName: 'tk-acd', sipPasswordSealed: 'x', transport: 'wss', settings: TRUNK_SETTING_DEFAULTS });
  const queue = store.queues.create(account.id, 'QU0', { friendlyName: 'support', maxWaitSeconds: 600, ringTimeoutSeconds: 20, wrapUpSeconds: 30, maxNoAnswer: 2, waitUrl: null });
  const ids: number[] = [];
  for (let i = 0; i < agents; i++) {
    clock.advance(1_000); // agent i has been idle longer than agent i+1
    ids.push(store.agents.create(account.id, `AG${i}`, { friendlyName: `agent ${i}`, trunkId: trunk.id, queueIds: [queue.id], status: 'available', breakReason: null }).id);
  }
  return {
    clock, queueId: queue.id, agentIds: ids, accountId: account.id,
    get store(): Store { return store; },
    router: () => new AcdRouter(store.db, clock),
    restart() { store.close(); store = openStore(dir, clock); },
  };
}

const everySeat = () => true;

t.test('offers go to the longest-idle agent; a reservation holds both sides once', async (t) => {
  const w = world(t);
  const r = w.router();
  t.equal(r.reserveNext(w.queueId, everySeat), null, 'nobody waiting: no offer');
  t.ok(r.enqueue('CA1', w.queueId));
  t.notOk(r.enqueue('CA1', w.queueId), 'a caller waits once');
  r.enqueue('CA2', w.queueId);
  const first = r.reserveNext(w.queueId, everySeat)!;
  t.match(first, { callSid: 'CA1', agentId: w.agentIds[0] }, 'first in line to the agent idle longest');
  const second = r.reserveNext(w.queueId, (a) => a.id !== w.agentIds[1])!;
  t.match(second, { callSid: 'CA2', agentId: w.agentIds[2] }, 'an agent whose seat cannot ring is passed over');
  t.equal(r.reserveNext(w.queueId, everySeat), null, 'nobody else waits un-offered');
  t.ok(r.ringing(first));
  t.ok(r.answered(first));
  t.notOk(r.answered(first), 'answered once');
  t.same(w.store.queues.waiting(w.store.queues.getForAccount(w.accountId, 'QU0')!).map((m) => m.callSid), ['CA2'], 'the answered caller left the queue');
  t.ok(r.callEnded(first.agentId, 'CA1', 30));
  t.match(w.store.agents.getForAccount(w.accountId, 'AG0'), { activity: 'wrap-up' });
  w.clock.advance(29_999);
  t.same(r.endDueWrapUps(), [], 'wrap-up lasts its seconds');
  w.clock.advance(1);
  t.same(r.endDueWrapUps(), [first.agentId], 'and ends when they have passed');
  t.match(w.store.agents.getForAccount(w.accountId, 'AG0'), { activity: 'idle', currentCallSid: null });
  r.enqueue('CA3', w.queueId);
  t.match(r.reserveNext(w.queueId, everySeat), { callSid: 'CA3', agentId: w.agentIds[1] }, 'after wrap-up an agent is idle from then: another agent has waited longer');
});

t.test('missed offers: the caller is first in line again; max_no_answer misses in a row put the agent on break', async (t) => {
  const w = world(t, 1);
  const r = w.router();
  r.enqueue('CA1', w.queueId);
  const offer = r.reserveNext(w.queueId, everySeat)!;
  r.ringing(offer);
  t.notOk(r.missed(offer, 2), 'one miss');
  const again = r.reserveNext(w.queueId, everySeat)!;
  t.equal(again.callSid, 'CA1', 'the same caller, first in line again');
  t.ok(r.missed(again, 2), 'the second miss in a row: break');
  t.match(w.store.agents.getForAccount(w.accountId, 'AG0'), { status: 'break', breakReason: 'missed 2 offered calls in a row', activity: 'idle' });
  t.equal(r.reserveNext(w.queueId, everySeat), null, 'an agent on break gets no offer');
});

t.test('a caller who hangs up leaves the queue and frees the agent it was offered to', async (t) => {
  const w = world(t, 1);
  const r = w.router();
  r.enqueue('CA1', w.queueId);
  const offer = r.reserveNext(w.queueId, everySeat)!;
  r.ringing(offer);
  t.same(r.leave('CA1'), { queueId: w.queueId, withdrawnFrom: offer.agentId });
  t.match(w.store.agents.getForAccount(w.accountId, 'AG0'), { activity: 'idle', currentCallSid: null });
  t.notOk(r.answered(offer), 'a withdrawn offer cannot be answered');
  t.equal(r.leave('CA1'), null, 'gone already');
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

t.test('property: random traffic never double-books, loses or double-offers, and offers go longest-idle first', async (t) => {
  let runs = 0;
  const seen = { offers: 0, answers: 0, misses: 0, restarts: 0 };
  fc.assert(fc.property(fc.array(ops, { minLength: 20, maxLength: 80, size: 'max' }), (script) => {
    runs++;
    const w = world(t, 6);
    try {
      let r = w.router();
      // The model: each caller's state, each agent's state.
      const callers = new Map<string, 'waiting' | 'offered' | 'bridged' | 'gone'>();
      const offers: Offer[] = [];
      const rung = new Set<Offer>();
      const bridged = new Map<number, string>(); // agent → call, while busy
      let next = 0;
      const agentRow = (id: number) => w.store.db.prepare('SELECT * FROM acd_agents WHERE id = ?').get(id) as { status: string; activity: string; idle_since: number; current_call_sid: string | null };
      for (const step of script) {
        switch (step.op) {
          case 'arrive': { const sid = `CA${next++}`; r.enqueue(sid, w.queueId); callers.set(sid, 'waiting'); break; }
          case 'reserve': {
            const down = new Set(step.down.map((i) => w.agentIds[i % w.agentIds.length]!));
            const eligible = w.agentIds.map((id) => ({ id, ...agentRow(id) }))
              .filter((a) => a.status === 'available' && a.activity === 'idle' && !down.has(a.id))
              .sort((a, b) => a.idle_since - b.idle_since || a.id - b.id);
            const firstInLine = [...callers].find(([, s]) => s === 'waiting')?.[0];
            const offer = r.reserveNext(w.queueId, (a) => !down.has(a.id));
            if (!firstInLine || eligible.length === 0) { if (offer !== null) throw new Error('an offer without a waiting caller and a free agent'); break; }
            if (!offer || offer.callSid !== firstInLine) throw new Error(`expected ${firstInLine} to be offered, got ${offer?.callSid}`);
            if (offer.agentId !== eligible[0]!.id) throw new Error(`offer to agent ${offer.agentId}, longest idle is ${eligible[0]!.id}`);
            callers.set(offer.callSid, 'offered');
            offers.push(offer);
            seen.offers++;
            break;
          }
          case 'ring': { const o = offers.filter((x) => !rung.has(x))[step.i % Math.max(1, offers.length)]; if (o && r.ringing(o)) rung.add(o); break; }
          case 'answer': {
            const ringing = offers.filter((x) => rung.has(x));
            const o = ringing[step.i % Math.max(1, ringing.length)];
            if (o && r.answered(o)) { seen.answers++; callers.set(o.callSid, 'bridged'); bridged.set(o.agentId, o.callSid); offers.splice(offers.indexOf(o), 1); }
            break;
          }
          case 'miss': {
            const o = offers[step.i % Math.max(1, offers.length)];
            if (o) { seen.misses++; r.missed(o, 2); callers.set(o.callSid, 'waiting'); offers.splice(offers.indexOf(o), 1); }
            break;
          }
          case 'hangup': {
            const waiting = [...callers].filter(([, s]) => s === 'waiting' || s === 'offered');
            const pick = waiting[step.i % Math.max(1, waiting.length)];
            if (!pick) break;
            r.leave(pick[0]);
            callers.set(pick[0], 'gone');
            const o = offers.find((x) => x.callSid === pick[0]);
            if (o) offers.splice(offers.indexOf(o), 1);
            break;
          }
          case 'end': {
            const busy = [...bridged];
            const pick = busy[step.i % Math.max(1, busy.length)];
            if (pick && r.callEnded(pick[0], pick[1])) { callers.set(pick[1], 'gone'); bridged.delete(pick[0]); }
            break;
          }
          case 'wrapped': r.wrapUpDone(w.agentIds[step.i % w.agentIds.length]!); break;
          case 'status': w.store.db.prepare('UPDATE acd_agents SET status = ? WHERE id = ?').run(step.to, w.agentIds[step.i % w.agentIds.length]!); break;
          case 'restart': seen.restarts++; w.restart(); r = w.router(); break;
          case 'tick': w.clock.advance(step.ms); break;
        }
        // Invariants, read from the database.
        const rows = w.store.db.prepare("SELECT id, current_call_sid FROM acd_agents WHERE activity IN ('reserved', 'ringing', 'busy')").all() as Array<{ id: number; current_call_sid: string | null }>;
        const held = rows.map((x) => x.current_call_sid);
        if (held.some((c) => c === null) || new Set(held).size !== held.length) throw new Error(`an agent holds no call or two agents hold one: ${JSON.stringify(rows)}`);
        const members = w.store.db.prepare('SELECT call_sid, offered_to FROM acd_members').all() as Array<{ call_sid: string; offered_to: number | null }>;
        const inQueue = new Set(members.map((m) => m.call_sid));
        for (const [sid, s] of callers) {
          if ((s === 'waiting' || s === 'offered') !== inQueue.has(sid)) throw new Error(`${sid} is ${s} but ${inQueue.has(sid) ? 'in' : 'not in'} the queue`);
        }
        for (const m of members) {
          if (m.offered_to === null) continue;
          const holder = rows.find((x) => x.id === m.offered_to);
          if (holder?.current_call_sid !== m.call_sid) throw new Error(`${m.call_sid} is offered to agent ${m.offered_to}, which holds ${holder?.current_call_sid}`);
        }
      }
    } finally {
      w.store.close();
    }
  }), { numRuns: 150 });
  t.ok(seen.offers > 100 && seen.answers > 20 && seen.misses > 20 && seen.restarts > 20, `${runs} random scripts of 20 to 80 steps held every invariant (${JSON.stringify(seen)})`);
});
