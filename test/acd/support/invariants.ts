// What must hold in the ACD's tables after any step, however many routers decide at once: no agent holds two
// calls (or none while reserved, ringing or busy), every offered caller is held by exactly its agent, and the
// queue holds exactly the callers a model says are waiting or offered (none lost, none left behind).
import type { SqlQueries } from '../../../src/store/sql.js';

export type CallerState = 'waiting' | 'offered' | 'bridged' | 'gone';

export async function checkInvariants(db: SqlQueries, callers: ReadonlyMap<string, CallerState>): Promise<void> {
  const rows = await db.all<{ id: number; current_call_sid: string | null }>("SELECT id, current_call_sid FROM acd_agents WHERE activity IN ('reserved', 'ringing', 'busy')");
  const held = rows.map((x) => x.current_call_sid);
  if (held.some((c) => c === null) || new Set(held).size !== held.length) throw new Error(`an agent holds no call or two agents hold one: ${JSON.stringify(rows)}`);
  const members = await db.all<{ call_sid: string; offered_to: number | null }>('SELECT call_sid, offered_to FROM acd_members');
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
