// Lead campaigns' settings: speed to lead sends each lead injected for the campaign to a queue as a callback due at
// once (its agent is rung, then the lead), with the campaign's caller ID. Campaigns without settings just collect leads.
import type { SqlDb, SqlQueries } from '../store/sql.js';
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
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** Creates or replaces the campaign's settings. */
  async put(accountId: number, name: string, s: { queueId: number | null; callerId: string | null }): Promise<LeadCampaign> {
    const now = new Date(this.clock.now()).toISOString();
    await this.sql.run(`INSERT INTO lead_campaigns (account_id, name, speed_to_lead_queue_id, caller_id, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (account_id, name) DO UPDATE SET speed_to_lead_queue_id = excluded.speed_to_lead_queue_id, caller_id = excluded.caller_id, updated_at = excluded.updated_at`,
    [accountId, name, s.queueId, s.callerId, now, now]);
    return (await this.get(accountId, name))!;
  }

  /** `q`: the caller's transaction when the campaign decides what that transaction writes (a lead's callback). */
  async get(accountId: number, name: string, q: SqlQueries = this.sql): Promise<LeadCampaign | undefined> {
    const row = await q.one<Row>(`${SELECT} WHERE c.account_id = ? AND c.name = ?`, [accountId, name]);
    return row && toCampaign(row);
  }

  async list(accountId: number): Promise<LeadCampaign[]> {
    return (await this.sql.all<Row>(`${SELECT} WHERE c.account_id = ? ORDER BY c.name`, [accountId])).map(toCampaign);
  }

  /** The account's campaigns whose speed to lead calls leads back from this number. */
  async namesCallingFrom(accountId: number, callerId: string): Promise<string[]> {
    return (await this.sql.all<{ name: string }>('SELECT name FROM lead_campaigns WHERE account_id = ? AND caller_id = ? AND speed_to_lead_queue_id IS NOT NULL ORDER BY name',
      [accountId, callerId])).map((r) => r.name);
  }

  async delete(accountId: number, name: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM lead_campaigns WHERE account_id = ? AND name = ?', [accountId, name])).changes === 1;
  }
}
