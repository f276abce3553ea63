import type { SqlDb } from './sql.js';
import type { Clock } from '../clock.js';

/** A contact a trunk or WebRTC client registered (see the drachtio registrar), live until `expiresAt` (ms). */
export interface SipRegistration {
  endpointName: string;
  contact: string;
  proxy: string;
  transport: string;
  expiresAt: number;
}

interface Row { endpoint_name: string; contact: string; proxy: string; transport: string; expires_at: number }

const toRegistration = (r: Row): SipRegistration => ({
  endpointName: r.endpoint_name, contact: r.contact, proxy: r.proxy, transport: r.transport, expiresAt: r.expires_at,
});

/** Stored so a control-plane restart does not lose where trunks and clients can be reached. */
export class RegistrationRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** Adds a binding, or refreshes it on a re-REGISTER (the first registration's created_at stays). */
  async upsert(r: SipRegistration): Promise<void> {
    const at = new Date(this.clock.now()).toISOString();
    await this.sql.run(`
      INSERT INTO sip_registrations (endpoint_name, contact, proxy, transport, expires_at, created_at, updated_at)
      VALUES (?, ?, ?, ?, ?, ?, ?)
      ON CONFLICT (endpoint_name, contact) DO UPDATE SET
        proxy = excluded.proxy, transport = excluded.transport, expires_at = excluded.expires_at, updated_at = excluded.updated_at
    `, [r.endpointName, r.contact, r.proxy, r.transport, r.expiresAt, at, at]);
  }

  async remove(endpointName: string, contact: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM sip_registrations WHERE endpoint_name = ? AND contact = ?', [endpointName, contact])).changes > 0;
  }

  async removeAll(endpointName: string): Promise<number> {
    return (await this.sql.run('DELETE FROM sip_registrations WHERE endpoint_name = ?', [endpointName])).changes;
  }

  /** Bindings not yet expired at `now`, newest expiry first (the one a call goes to). */
  async listLive(endpointName: string, now: number): Promise<SipRegistration[]> {
    const rows = await this.sql.all<Row>(
      'SELECT * FROM sip_registrations WHERE endpoint_name = ? AND expires_at > ? ORDER BY expires_at DESC', [endpointName, now],
    );
    return rows.map(toRegistration);
  }

  async pruneExpired(now: number): Promise<number> {
    return (await this.sql.run('DELETE FROM sip_registrations WHERE expires_at <= ?', [now])).changes;
  }
}
