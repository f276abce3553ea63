// Several routers deciding at once against one PostgreSQL database, each with its own connection pool (as separate
// control planes would): random rounds in which every router does something at the same moment (a caller arrives,
// an offer is made, rung, answered or missed, a caller hangs up, a call ends, a wrap-up ends, an agent changes
// status). After every round, read from the database: no agent holds two calls, no caller is offered to two agents,
// none is lost; and every offer the round made went to a caller who was waiting and an agent who was free.
// (SQLite has one writer, so its decisions cannot overlap: routing.test.ts covers it.)
import t from 'tap';
import fc from 'fast-check';
import { PostgresDb } from '../../src/store/postgres-db.js';
import type { SqlDb } from '../../src/store/sql.js';
import { AcdRouter, type Offer } from '../../src/acd/routing.js';
import { freshDatabase } from '../helpers/backends.js';
import { acdWorld, freeQueueAndAgents } from './support/acd-world.js';
import { checkInvariants, type CallerState } from './support/invariants.js';

const ROUTERS = 3;
const AGENTS = 4;
const RUNS = 200;

type Op =
  | { op: 'arrive' } | { op: 'reserve' } | { op: 'ring'; i: number } | { op: 'answer'; i: number } | { op: 'miss'; i: number }
  | { op: 'hangup'; i: number } | { op: 'end'; i: number } | { op: 'wrapped'; i: number } | { op: 'status'; i: number; to: 'available' | 'break' };

const op: fc.Arbitrary<Op> = fc.oneof(
  { arbitrary: fc.constant({ op: 'arrive' as const }), weight: 4 },
  { arbitrary: fc.constant({ op: 'reserve' as const }), weight: 6 },
  ...(['ring', 'answer', 'miss', 'hangup', 'end', 'wrapped'] as const).map((o) => ({ arbitrary: fc.record({ op: fc.constant(o), i: fc.nat(20) }), weight: 2 })),
  { arbitrary: fc.record({ op: fc.constant('status' as const), i: fc.nat(AGENTS), to: fc.constantFrom('available' as const, 'break' as const) }), weight: 1 },
);

t.test(`property: ${ROUTERS} routers on separate pools never double-book an agent, offer a caller twice, or lose one`, async (t) => {
  const db = await freshDatabase(t, 'postgres');
  if (!db) return;
  const w = await acdWorld(db, { agents: AGENTS, maxNoAnswer: 3 });
  const url = ((db as PostgresDb).pool.options as { connectionString: string }).connectionString;
  const pools: SqlDb[] = Array.from({ length: ROUTERS }, () => new PostgresDb({ url, poolSize: 2 }));
  t.teardown(() => Promise.all(pools.map((p) => p.close())));
  const routers = pools.map((p) => new AcdRouter(p, w.clock));
  const seen = { rounds: 0, offers: 0, racedOffers: 0, answers: 0, misses: 0, hangups: 0 };
  let next = 0;

  await fc.assert(fc.asyncProperty(fc.array(fc.array(op, { minLength: ROUTERS, maxLength: ROUTERS }), { minLength: 5, maxLength: 25 }), async (rounds) => {
    // Every script starts from an empty queue and free agents.
    await freeQueueAndAgents(db);
    const callers = new Map<string, CallerState>();
    const offers: Offer[] = [];
    const rung = new Set<Offer>();
    const bridged = new Map<number, string>();
    for (const round of rounds) {
      seen.rounds++;
      // Steps on an offer or a call take it out of the pool for the round: one step each, as its one owner would.
      const claimed = new Set<unknown>();
      const pick = <T>(list: T[], i: number): T | undefined => {
        const free = list.filter((x) => !claimed.has(x));
        const x = free[i % Math.max(1, free.length)];
        if (x !== undefined) claimed.add(x);
        return x;
      };
      const waitingBefore = new Set([...callers].filter(([, s]) => s === 'waiting').map(([sid]) => sid));
      const inLineBefore = [...callers].filter(([, s]) => s === 'waiting' || s === 'offered').map(([sid]) => sid);
      const busyBefore = new Set([...offers.map((o) => o.agentId), ...bridged.keys()]);
      const made: Offer[] = [];
      /** Agents this round freed (a miss, a withdrawn offer, a wrap-up ended): another router may offer them a call at once. */
      const freed = new Set<number>();
      const left = new Map<string, { withdrawnFrom: number | null } | null>();
      await Promise.all(round.map(async (step, n) => {
        const r = routers[n]!;
        w.clock.advance(50);
        switch (step.op) {
          case 'arrive': { const sid = `CA${next++}`; callers.set(sid, 'waiting'); await r.enqueue(sid, w.queue.id); break; }
          case 'reserve': { const o = await r.reserveNext(w.queue.id, () => true); if (o) made.push(o); break; }
          case 'ring': { const o = pick(offers.filter((x) => !rung.has(x)), step.i); if (o && (await r.ringing(o))) rung.add(o); break; }
          case 'answer': {
            const o = pick(offers.filter((x) => rung.has(x)), step.i);
            if (o && (await r.answered(o))) { seen.answers++; callers.set(o.callSid, 'bridged'); bridged.set(o.agentId, o.callSid); offers.splice(offers.indexOf(o), 1); }
            break;
          }
          case 'miss': {
            const o = pick(offers, step.i);
            if (o) { seen.misses++; freed.add(o.agentId); await r.missed(o, 3); callers.set(o.callSid, 'waiting'); offers.splice(offers.indexOf(o), 1); rung.delete(o); }
            break;
          }
          case 'hangup': {
            // A waiting caller may be offered by another router in this very round: the race the locks decide.
            const sid = pick(inLineBefore, step.i);
            if (!sid || offers.some((o) => o.callSid === sid && claimed.has(o))) break;
            for (const o of offers) if (o.callSid === sid) claimed.add(o);
            seen.hangups++;
            const gone = await r.leave(sid);
            left.set(sid, gone);
            if (gone?.withdrawnFrom) freed.add(gone.withdrawnFrom);
            break;
          }
          case 'end': {
            const b = pick([...bridged], step.i);
            if (b && (await r.callEnded(b[0], b[1], 0))) { callers.set(b[1], 'gone'); bridged.delete(b[0]); freed.add(b[0]); }
            break;
          }
          case 'wrapped': await r.wrapUpDone(w.agentIds[step.i % AGENTS]!); break;
          case 'status': await pools[n]!.run('UPDATE acd_agents SET status = ? WHERE id = ?', [step.to, w.agentIds[step.i % AGENTS]!]); break;
        }
      }));
      // What this round's offers must be: distinct callers and agents, each caller waiting (or arriving) and each agent free before.
      if (new Set(made.map((o) => o.callSid)).size !== made.length) throw new Error(`one caller offered twice in a round: ${JSON.stringify(made)}`);
      // An agent may get a second offer in the round only once its first was withdrawn (that caller hung up meanwhile).
      const standing = made.filter((o) => left.get(o.callSid)?.withdrawnFrom !== o.agentId);
      if (new Set(standing.map((o) => o.agentId)).size !== standing.length) throw new Error(`one agent offered two calls in a round: ${JSON.stringify(made)}`);
      for (const o of made) {
        if (busyBefore.has(o.agentId) && !freed.has(o.agentId)) throw new Error(`agent ${o.agentId} was offered ${o.callSid} while it held a call`);
        if (!waitingBefore.has(o.callSid) && callers.get(o.callSid) !== 'waiting') throw new Error(`${o.callSid} was offered but was not waiting`);
        seen.offers++;
        if (left.has(o.callSid)) {
          // Hung up in the same round: either before the offer (then it cannot have been made) or after it (withdrawn from that agent).
          seen.racedOffers++;
          if (left.get(o.callSid)?.withdrawnFrom !== o.agentId) throw new Error(`${o.callSid} hung up in the round it was offered, yet its offer to ${o.agentId} was not withdrawn`);
          continue;
        }
        callers.set(o.callSid, 'offered');
        offers.push(o);
      }
      for (const [sid] of left) {
        callers.set(sid, 'gone');
        for (const o of offers.filter((x) => x.callSid === sid)) { offers.splice(offers.indexOf(o), 1); rung.delete(o); }
      }
      await checkInvariants(db, callers);
    }
  }), { numRuns: RUNS });
  t.ok(seen.offers > RUNS && seen.answers > RUNS / 4 && seen.hangups > RUNS / 4,
    `${RUNS} random scripts, ${seen.rounds} rounds of ${ROUTERS} routers at once, held every invariant (${JSON.stringify(seen)})`);
});
