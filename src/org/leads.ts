// Leads pushed in through lead injection (web forms, partner systems). Kept so the ACD work can dial them.
import type { Db } from '../store/db.js';
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
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  create(input: { accountId: number; phone: string; campaign: string; attributes: Record<string, string>; sourceIp: string | null }): Lead {
    const sid = newSid('LD');
    this.db.prepare('INSERT INTO leads (sid, account_id, phone, campaign, attributes, status, source_ip, created_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)')
      .run(sid, input.accountId, input.phone, input.campaign, JSON.stringify(input.attributes), 'accepted', input.sourceIp, new Date(this.clock.now()).toISOString());
    return this.getForAccount(input.accountId, sid)!;
  }

  getForAccount(accountId: number, sid: string): Lead | undefined {
    const row = this.db.prepare('SELECT * FROM leads WHERE sid = ? AND account_id = ?').get(sid, accountId) as Row | undefined;
    return row && toLead(row);
  }
}
