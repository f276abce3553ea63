// Leads pushed in through lead injection (web forms, partner systems). Kept so the ACD work can dial them.
import type { SqlDb, SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';
import { newSid } from '../crypto/tokens.js';

export interface Lead {
  sid: string;
  accountId: number;
  phone: string;
  campaign: string;
  attributes: Record<string, string>;
  status: 'accepted';
  sourceIp: string | null;
  createdAt: string;
}

interface Row { sid: string; account_id: number; phone: string; campaign: string; attributes: string; status: 'accepted'; source_ip: string | null; created_at: string }

const toLead = (r: Row): Lead => ({
  sid: r.sid, accountId: r.account_id, phone: r.phone, campaign: r.campaign,
  attributes: JSON.parse(r.attributes) as Record<string, string>, status: r.status, sourceIp: r.source_ip, createdAt: r.created_at,
});

export class LeadRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** `q`: the caller's transaction, when the lead must commit with other writes. */
  async create(input: { accountId: number; phone: string; campaign: string; attributes: Record<string, string>; sourceIp: string | null }, q: SqlQueries = this.sql): Promise<Lead> {
    const row = await q.one<Row>(
      'INSERT INTO leads (sid, account_id, phone, campaign, attributes, status, source_ip, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING *',
      [newSid('LD'), input.accountId, input.phone, input.campaign, JSON.stringify(input.attributes), 'accepted', input.sourceIp, new Date(this.clock.now()).toISOString()],
    );
    return toLead(row!);
  }

  async getForAccount(accountId: number, sid: string): Promise<Lead | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM leads WHERE sid = ? AND account_id = ?', [sid, accountId]);
    return row && toLead(row);
  }
}
