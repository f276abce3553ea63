// Dispositions: the outcome code an agent (or a system) sets on a call, kept with the call sid and the agent.
import type { SqlDb, SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';

export interface Disposition {
  sid: string;
  callSid: string;
  agentSid: string | null;
  disposition: string;
  notes: string | null;
  createdAt: string;
}

interface Row { sid: string; call_sid: string; agent_sid: string | null; disposition: string; notes: string | null; created_at: string }

const toDisposition = (r: Row): Disposition =>
  ({ sid: r.sid, callSid: r.call_sid, agentSid: r.agent_sid, disposition: r.disposition, notes: r.notes, createdAt: r.created_at });

export class DispositionRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** Stores a disposition; `q` is the caller's transaction when its event must commit with it. */
  async create(accountId: number, d: Omit<Disposition, 'createdAt'>, q: SqlQueries = this.sql): Promise<Disposition> {
    const createdAt = new Date(this.clock.now()).toISOString();
    await q.run('INSERT INTO acd_dispositions (sid, account_id, call_sid, agent_sid, disposition, notes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)',
      [d.sid, accountId, d.callSid, d.agentSid, d.disposition, d.notes, createdAt]);
    return { ...d, createdAt };
  }

  /** The call's dispositions, oldest first (a call may be given more than one: the last one stands). */
  async forCall(accountId: number, callSid: string): Promise<Disposition[]> {
    return (await this.sql.all<Row>('SELECT * FROM acd_dispositions WHERE account_id = ? AND call_sid = ? ORDER BY id', [accountId, callSid])).map(toDisposition);
  }
}
