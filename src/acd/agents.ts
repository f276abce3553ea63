// ACD agents in SQLite: who they are, the seat (trunk) their calls ring, the queues they serve, the status they
// choose and the activity the platform sets. Queue membership is replaced whole, in the same transaction.
import type { Db } from '../store/db.js';
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
  activity: AgentActivity; current_call_sid: string | null; created_at: string; updated_at: string; queue_sids: string | null;
}

const SELECT = `SELECT a.*, (SELECT group_concat(q.sid, ' ') FROM acd_agent_queues aq JOIN acd_queues q ON q.id = aq.queue_id
  WHERE aq.agent_id = a.id) AS queue_sids FROM acd_agents a`;

const toAgent = (r: Row): Agent => ({
  id: r.id, sid: r.sid, accountId: r.account_id, friendlyName: r.friendly_name, trunkId: r.trunk_id,
  queueSids: r.queue_sids ? r.queue_sids.split(' ').sort() : [], status: r.status, breakReason: r.break_reason, activity: r.activity,
  currentCallSid: r.current_call_sid, createdAt: r.created_at, updatedAt: r.updated_at,
});

export interface AgentFilter { queueId?: number; status?: AgentStatus }

export class AgentRepo {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  create(accountId: number, sid: string, f: AgentFields): Agent {
    const nowMs = this.clock.now();
    const now = new Date(nowMs).toISOString();
    this.db.transaction(() => {
      const info = this.db.prepare(`INSERT INTO acd_agents (sid, account_id, friendly_name, trunk_id, status, break_reason, activity, idle_since,
        created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, 'idle', ?, ?, ?)`)
        .run(sid, accountId, f.friendlyName, f.trunkId, f.status, f.breakReason, nowMs, now, now);
      this.#setQueues(Number(info.lastInsertRowid), f.queueIds);
    })();
    return this.getForAccount(accountId, sid)!;
  }

  getForAccount(accountId: number, sid: string): Agent | undefined {
    const row = this.db.prepare(`${SELECT} WHERE a.sid = ? AND a.account_id = ?`).get(sid, accountId) as Row | undefined;
    return row && toAgent(row);
  }

  listForAccount(accountId: number, filter: AgentFilter, page: { beforeId: number | null; limit: number }): Agent[] {
    return (this.db.prepare(`${SELECT} WHERE a.account_id = ? AND (? IS NULL OR a.id < ?) AND (? IS NULL OR a.status = ?)
      AND (? IS NULL OR EXISTS (SELECT 1 FROM acd_agent_queues aq WHERE aq.agent_id = a.id AND aq.queue_id = ?)) ORDER BY a.id DESC LIMIT ?`)
      .all(accountId, page.beforeId, page.beforeId, filter.status ?? null, filter.status ?? null, filter.queueId ?? null, filter.queueId ?? null, page.limit) as Row[])
      .map(toAgent);
  }

  update(agent: Agent, f: AgentFields): Agent {
    this.db.transaction(() => {
      // Choosing "available" again clears the run of missed offers that put the agent on break.
      this.db.prepare(`UPDATE acd_agents SET friendly_name = ?, trunk_id = ?, status = ?, break_reason = ?,
        missed_in_a_row = CASE WHEN ? = 'available' THEN 0 ELSE missed_in_a_row END, updated_at = ? WHERE id = ?`)
        .run(f.friendlyName, f.trunkId, f.status, f.breakReason, f.status, new Date(this.clock.now()).toISOString(), agent.id);
      this.#setQueues(agent.id, f.queueIds);
    })();
    return this.getForAccount(agent.accountId, agent.sid)!;
  }

  /** The agent talking on the call or wrapping it up, if any. */
  onCall(accountId: number, callSid: string): Agent | undefined {
    const row = this.db.prepare(`${SELECT} WHERE a.account_id = ? AND a.current_call_sid = ? AND a.activity IN ('busy', 'wrap-up')`).get(accountId, callSid) as Row | undefined;
    return row && toAgent(row);
  }

  /** Deletes an agent that is not on a call (reserved, ringing or busy); false when it is. */
  deleteIfFree(agent: Agent): boolean {
    return this.db.prepare("DELETE FROM acd_agents WHERE id = ? AND activity IN ('idle', 'wrap-up')").run(agent.id).changes === 1;
  }

  #setQueues(agentId: number, queueIds: number[]): void {
    this.db.prepare('DELETE FROM acd_agent_queues WHERE agent_id = ?').run(agentId);
    const add = this.db.prepare('INSERT OR IGNORE INTO acd_agent_queues (agent_id, queue_id) VALUES (?, ?)');
    for (const q of queueIds) add.run(agentId, q);
  }
}
