// ACD agents in the store (SQLite or PostgreSQL): who they are, the seat (trunk) their calls ring, the queues they serve, the status they
// choose and the activity the platform sets. Queue membership is replaced whole, in the same transaction.
import type { SqlDb, SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';

export type AgentStatus = 'offline' | 'available' | 'break';
export type AgentActivity = 'idle' | 'reserved' | 'ringing' | 'busy' | 'wrap-up';

export interface Agent {
  id: number;
  sid: string;
  accountId: number;
  friendlyName: string;
  trunkId: number;
  /** The sids of the queues the agent serves. */
  queueSids: string[];
  status: AgentStatus;
  breakReason: string | null;
  activity: AgentActivity;
  currentCallSid: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface AgentFields { friendlyName: string; trunkId: number; queueIds: number[]; status: AgentStatus; breakReason: string | null }

interface Row {
  id: number; sid: string; account_id: number; friendly_name: string; trunk_id: number; status: AgentStatus; break_reason: string | null;
  activity: AgentActivity; current_call_sid: string | null; created_at: string; updated_at: string;
}

const toAgent = (r: Row, queueSids: string[]): Agent => ({
  id: r.id, sid: r.sid, accountId: r.account_id, friendlyName: r.friendly_name, trunkId: r.trunk_id,
  queueSids: [...queueSids].sort(), status: r.status, breakReason: r.break_reason, activity: r.activity,
  currentCallSid: r.current_call_sid, createdAt: r.created_at, updatedAt: r.updated_at,
});

export interface AgentFilter { queueId?: number; status?: AgentStatus }

export class AgentRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  async create(accountId: number, sid: string, f: AgentFields): Promise<Agent> {
    const nowMs = this.clock.now();
    const now = new Date(nowMs).toISOString();
    await this.sql.transaction(async (tx) => {
      const { id } = (await tx.one<{ id: number }>(`INSERT INTO acd_agents (sid, account_id, friendly_name, trunk_id, status, break_reason, activity, idle_since,
        created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'idle', ?, ?, ?) RETURNING id`, [sid, accountId, f.friendlyName, f.trunkId, f.status, f.breakReason, nowMs, now, now]))!;
      await setQueues(tx, id, f.queueIds);
    });
    return (await this.getForAccount(accountId, sid))!;
  }

  async getForAccount(accountId: number, sid: string): Promise<Agent | undefined> {
    return (await this.#withQueues(await this.sql.all<Row>('SELECT * FROM acd_agents WHERE sid = ? AND account_id = ?', [sid, accountId])))[0];
  }

  async listForAccount(accountId: number, filter: AgentFilter, page: { beforeId: number | null; limit: number }): Promise<Agent[]> {
    return this.#withQueues(await this.sql.all<Row>(`SELECT a.* FROM acd_agents a WHERE a.account_id = ? AND (CAST(? AS BIGINT) IS NULL OR a.id < ?)
      AND (CAST(? AS TEXT) IS NULL OR a.status = ?)
      AND (CAST(? AS BIGINT) IS NULL OR EXISTS (SELECT 1 FROM acd_agent_queues aq WHERE aq.agent_id = a.id AND aq.queue_id = ?)) ORDER BY a.id DESC LIMIT ?`,
    [accountId, page.beforeId, page.beforeId, filter.status ?? null, filter.status ?? null, filter.queueId ?? null, filter.queueId ?? null, page.limit]));
  }

  async update(agent: Agent, f: AgentFields): Promise<Agent> {
    await this.sql.transaction(async (tx) => {
      // Choosing "available" again clears the run of missed offers that put the agent on break.
      await tx.run(`UPDATE acd_agents SET friendly_name = ?, trunk_id = ?, status = ?, break_reason = ?,
        missed_in_a_row = CASE WHEN ? = 1 THEN 0 ELSE missed_in_a_row END, updated_at = ? WHERE id = ?`,
      [f.friendlyName, f.trunkId, f.status, f.breakReason, f.status === 'available' ? 1 : 0, new Date(this.clock.now()).toISOString(), agent.id]);
      await setQueues(tx, agent.id, f.queueIds);
    });
    return (await this.getForAccount(agent.accountId, agent.sid))!;
  }

  /** The agent talking on the call or wrapping it up, if any. */
  async onCall(accountId: number, callSid: string): Promise<Agent | undefined> {
    return (await this.#withQueues(await this.sql.all<Row>("SELECT * FROM acd_agents WHERE account_id = ? AND current_call_sid = ? AND activity IN ('busy', 'wrap-up')",
      [accountId, callSid])))[0];
  }

  /** Deletes an agent that is not on a call (reserved, ringing or busy); false when it is. */
  async deleteIfFree(agent: Agent): Promise<boolean> {
    return (await this.sql.run("DELETE FROM acd_agents WHERE id = ? AND activity IN ('idle', 'wrap-up')", [agent.id])).changes === 1;
  }

  /** The rows as agents, each with the sids of its queues (one query for all of them). */
  async #withQueues(rows: Row[]): Promise<Agent[]> {
    if (rows.length === 0) return [];
    const served = await this.sql.all<{ agent_id: number; sid: string }>(`SELECT aq.agent_id, q.sid FROM acd_agent_queues aq JOIN acd_queues q ON q.id = aq.queue_id
      WHERE aq.agent_id IN (${rows.map(() => '?').join(', ')})`, rows.map((r) => r.id));
    return rows.map((r) => toAgent(r, served.filter((s) => s.agent_id === r.id).map((s) => s.sid)));
  }
}

async function setQueues(tx: SqlQueries, agentId: number, queueIds: number[]): Promise<void> {
  await tx.run('DELETE FROM acd_agent_queues WHERE agent_id = ?', [agentId]);
  for (const q of queueIds) await tx.run('INSERT INTO acd_agent_queues (agent_id, queue_id) VALUES (?, ?) ON CONFLICT DO NOTHING', [agentId, q]);
}
