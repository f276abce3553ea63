// One control plane's ACD router in a process of its own, for routing-processes.test.ts: a random script (seeded
// by the test) of arrivals, offers, rings, answers, misses, hang-ups, call ends and wrap-ups against the shared
// PostgreSQL database, acting only on its own callers and its own offers, as one node acts on its own calls.
// Prints one JSON line per thing that happened, then "done".
// Run by the test: node --import tsx router-process.ts '{"url":…,"queueId":…,"agentIds":[…],"seed":…,"steps":…,"name":"p1"}'
import fc from 'fast-check';
import { systemClock } from '../../../src/clock.js';
import { AcdRouter, type Offer } from '../../../src/acd/routing.js';
import { PostgresDb } from '../../../src/store/postgres-db.js';

interface Args { url: string; queueId: number; agentIds: number[]; seed: number; steps: number; name: string }
const args = JSON.parse(process.argv[2]!) as Args;

type Op = 'arrive' | 'reserve' | 'ring' | 'answer' | 'miss' | 'hangup' | 'end' | 'wrapped';
const op = fc.record({
  op: fc.oneof(
    ...([['arrive', 4], ['reserve', 6], ['ring', 4], ['answer', 4], ['miss', 1], ['hangup', 2], ['end', 4], ['wrapped', 1]] as const)
      .map(([name, weight]) => ({ arbitrary: fc.constant<Op>(name), weight })),
  ),
  i: fc.nat(20),
});
const script = fc.sample(fc.array(op, { minLength: args.steps, maxLength: args.steps }), { seed: args.seed, numRuns: 1 })[0]!;

const db = new PostgresDb({ url: args.url, poolSize: 2 });
const router = new AcdRouter(db, systemClock());
const say = (line: Record<string, unknown>) => process.stdout.write(`${JSON.stringify(line)}\n`);
const at = <T>(list: T[], i: number): T | undefined => list[i % Math.max(1, list.length)];

// This process's callers that may still be in line (waiting, or offered by any process), its offers, its calls.
const inLine: string[] = [];
const offers: Offer[] = [];
const rung = new Set<Offer>();
const bridged: Offer[] = [];
let next = 0;
const drop = <T>(list: T[], x: T) => { list.splice(list.indexOf(x), 1); };

for (const { op: step, i } of script) {
  switch (step) {
    case 'arrive': {
      const sid = `CA${args.name}x${next++}`;
      await router.enqueue(sid, args.queueId);
      inLine.push(sid);
      say({ t: 'arrive', sid });
      break;
    }
    case 'reserve': {
      // Any waiting caller, any process's: the first in line goes to the longest-idle agent.
      const o = await router.reserveNext(args.queueId, () => true);
      if (o) { offers.push(o); say({ t: 'offer', sid: o.callSid, agent: o.agentId }); }
      break;
    }
    case 'ring': {
      const o = at(offers.filter((x) => !rung.has(x)), i);
      if (o && (await router.ringing(o))) rung.add(o);
      break;
    }
    case 'answer': {
      const o = at(offers.filter((x) => rung.has(x)), i);
      if (o && (await router.answered(o))) { drop(offers, o); bridged.push(o); say({ t: 'answer', sid: o.callSid, agent: o.agentId }); }
      break;
    }
    case 'miss': {
      const o = at(offers, i);
      if (o) { drop(offers, o); rung.delete(o); if (await router.missed(o, 3)) say({ t: 'miss', sid: o.callSid, agent: o.agentId }); }
      break;
    }
    case 'hangup': {
      // One of this process's callers hangs up, whoever has offered it meanwhile: the race the locks decide.
      const sid = at(inLine, i);
      if (!sid) break;
      drop(inLine, sid);
      const gone = await router.leave(sid);
      say({ t: 'leave', sid, left: gone !== null, withdrawnFrom: gone?.withdrawnFrom ?? null });
      break;
    }
    case 'end': {
      const o = at(bridged, i);
      if (o) { drop(bridged, o); if (await router.callEnded(o.agentId, o.callSid, 0)) say({ t: 'end', sid: o.callSid, agent: o.agentId }); }
      break;
    }
    case 'wrapped': await router.wrapUpDone(at(args.agentIds, i)!); break;
  }
}
say({ t: 'done' });
await db.close();
