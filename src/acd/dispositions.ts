// Dispositions: the outcome code an agent (or a system) sets on a call, kept with the call sid and the agent.
import type { Db } from '../store/db.js';
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
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  create(accountId: number, d: Omit<Disposition, 'createdAt'>): Disposition {
    const createdAt = new Date(this.clock.now()).toISOString();
    this.db.prepare('INSERT INTO acd_dispositions (sid, account_id, call_sid, agent_sid, disposition, notes, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(d.sid, accountId, d.callSid, d.agentSid, d.disposition, d.notes, createdAt);
    return { ...d, createdAt };
  }

  /** The call's dispositions, oldest first (a call may be given more than one: the last one stands). */
  forCall(accountId: number, callSid: string): Disposition[] {
    return (this.db.prepare('SELECT * FROM acd_dispositions WHERE account_id = ? AND call_sid = ? ORDER BY id').all(accountId, callSid) as Row[]).map(toDisposition);
  }
}
