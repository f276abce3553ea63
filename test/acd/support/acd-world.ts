// An ACD on any store backend (a SqlDb from onEachBackend): an account and a seat (trunk) written straight into
// their tables (their repositories are not on the SqlDb port yet), one queue, and agents idle one second apart.
import type { Clock, TimerHandle } from '../../../src/clock.js';
import type { SqlDb, SqlQueries } from '../../../src/store/sql.js';
import { DEFAULT_QUEUE_SETTINGS, QueueRepo, type Queue } from '../../../src/acd/queues.js';
import { AgentRepo } from '../../../src/acd/agents.js';
import { AcdRouter } from '../../../src/acd/routing.js';

/** Time that moves only when told (the router reads the time; it sets no timers). */
export class StepClock implements Clock {
  #now = Date.UTC(2026, 0, 1);
  now(): number { return this.#now; }
  advance(ms: number): void { this.#now += ms; }
  setTimeout(): TimerHandle { throw new Error('the ACD router sets no timers'); }
  clearTimeout(): void {}
}

export interface AcdWorld {
  clock: StepClock;
  accountId: number;
  queue: Queue;
  agentIds: number[];
  queues: QueueRepo;
  agents: AgentRepo;
  router: () => AcdRouter;
}

export async function acdWorld(db: SqlDb, opts: { agents: number; maxNoAnswer?: number; clock?: StepClock }): Promise<AcdWorld> {
  const clock = opts.clock ?? new StepClock();
  const at = new Date(clock.now()).toISOString();
  const { id: accountId } = (await db.one<{ id: number }>('INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES (?, 1, 20, ?) RETURNING id', ['acd', at]))!;
  const { id: trunkId } = (await db.one<{ id: number }>(`INSERT INTO trunks (account_id, status, endpoint_name, sip_password_enc, transport, created_at, updated_at)
    VALUES (?, 'active', 'tk-acd', 'x', 'wss', ?, ?) RETURNING id`, [accountId, at, at]))!;
  const queues = new QueueRepo(db, clock);
  const agents = new AgentRepo(db, clock);
  const queue = await queues.create(accountId, 'QU0', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'support', maxNoAnswer: opts.maxNoAnswer ?? 2 });
  const agentIds: number[] = [];
  for (let i = 0; i < opts.agents; i++) {
    clock.advance(1_000); // agent i has been idle longer than agent i+1
    agentIds.push((await agents.create(accountId, `AG${i}`, { friendlyName: `agent ${i}`, trunkId, queueIds: [queue.id], status: 'available', breakReason: null })).id);
  }
  return { clock, accountId, queue, agentIds, queues, agents, router: () => new AcdRouter(db, clock) };
}

/** The queue empty and every agent available and idle, as acdWorld leaves them: a new random script's start. */
export async function freeQueueAndAgents(db: SqlQueries): Promise<void> {
  await db.run('DELETE FROM acd_members');
  await db.run("UPDATE acd_agents SET status = 'available', activity = 'idle', current_call_sid = NULL, wrap_up_ends_at = NULL, missed_in_a_row = 0");
}
