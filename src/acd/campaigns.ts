// Lead campaigns' settings: speed to lead sends each lead injected for the campaign to a queue as a callback due at
// once (its agent is rung, then the lead), with the campaign's caller ID. Campaigns without settings just collect leads.
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';

export interface LeadCampaign {
  id: number;
  name: string;
  /** The queue whose agents call each new lead back at once, or null (speed to lead off). */
  queueId: number | null;
  queueSid: string | null;
  callerId: string | null;
  createdAt: string;
  updatedAt: string;
}

interface Row { id: number; name: string; speed_to_lead_queue_id: number | null; queue_sid: string | null; caller_id: string | null; created_at: string; updated_at: string }

const SELECT = 'SELECT c.*, q.sid AS queue_sid FROM lead_campaigns c LEFT JOIN acd_queues q ON q.id = c.speed_to_lead_queue_id';
const toCampaign = (r: Row): LeadCampaign =>
  ({ id: r.id, name: r.name, queueId: r.speed_to_lead_queue_id, queueSid: r.queue_sid, callerId: r.caller_id, createdAt: r.created_at, updatedAt: r.updated_at });

export class LeadCampaignRepo {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  /** Creates or replaces the campaign's settings. */
  put(accountId: number, name: string, s: { queueId: number | null; callerId: string | null }): LeadCampaign {
    const now = new Date(this.clock.now()).toISOString();
    this.db.prepare(`INSERT INTO lead_campaigns (account_id, name, speed_to_lead_queue_id, caller_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (account_id, name) DO UPDATE SET speed_to_lead_queue_id = excluded.speed_to_lead_queue_id, caller_id = excluded.caller_id, updated_at = excluded.updated_at`)
      .run(accountId, name, s.queueId, s.callerId, now, now);
    return this.get(accountId, name)!;
  }

  get(accountId: number, name: string): LeadCampaign | undefined {
    const row = this.db.prepare(`${SELECT} WHERE c.account_id = ? AND c.name = ?`).get(accountId, name) as Row | undefined;
    return row && toCampaign(row);
  }

  list(accountId: number): LeadCampaign[] {
    return (this.db.prepare(`${SELECT} WHERE c.account_id = ? ORDER BY c.name`).all(accountId) as Row[]).map(toCampaign);
  }

  /** The account's campaigns whose speed to lead calls leads back from this number. */
  namesCallingFrom(accountId: number, callerId: string): string[] {
    return this.db.prepare('SELECT name FROM lead_campaigns WHERE account_id = ? AND caller_id = ? AND speed_to_lead_queue_id IS NOT NULL ORDER BY name')
      .pluck().all(accountId, callerId) as string[];
  }

  delete(accountId: number, name: string): boolean {
    return this.db.prepare('DELETE FROM lead_campaigns WHERE account_id = ? AND name = ?').run(accountId, name).changes === 1;
  }
}
