import type { SqlDb } from './sql.js';
import type { Clock } from '../clock.js';

/**
 * A carrier gateway: the SIP peer DID calls come from (inbound trust is by source address) and the route for
 * calls to phone numbers. `prefix` narrows the outbound route to numbers starting with it (longest wins);
 * a carrier without one takes every other number.
 */
export interface Carrier {
  id: number;
  name: string;
  host: string;
  /** null: any source port is trusted inbound, and 5060 is used outbound. */
  port: number | null;
  prefix: string | null;
  createdAt: string;
}

interface Row { id: number; name: string; host: string; port: number | null; prefix: string | null; created_at: string }

const toCarrier = (r: Row): Carrier => ({ id: r.id, name: r.name, host: r.host, port: r.port, prefix: r.prefix, createdAt: r.created_at });

export class CarrierNameTakenError extends Error {
  constructor(name: string) { super(`a carrier named "${name}" already exists`); }
}

export class CarrierRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** The name is unique: of two adds of one name at once (two nodes), one gets CarrierNameTakenError. */
  async add(c: { name: string; host: string; port: number | null; prefix?: string | null }): Promise<Carrier> {
    const row = await this.sql.one<Row>(
      'INSERT INTO carriers (name, host, port, prefix, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (name) DO NOTHING RETURNING *',
      [c.name, c.host, c.port, c.prefix ?? null, new Date(this.clock.now()).toISOString()],
    );
    if (!row) throw new CarrierNameTakenError(c.name);
    return toCarrier(row);
  }

  async get(id: number): Promise<Carrier | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM carriers WHERE id = ?', [id]);
    return row && toCarrier(row);
  }

  async byName(name: string): Promise<Carrier | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM carriers WHERE name = ?', [name]);
    return row && toCarrier(row);
  }

  /** Read on every call by the engine, so a carrier added with the CLI while the server runs counts at once. */
  async list(): Promise<Carrier[]> {
    return (await this.sql.all<Row>('SELECT * FROM carriers ORDER BY id')).map(toCarrier);
  }

  async remove(name: string): Promise<boolean> {
    return (await this.sql.run('DELETE FROM carriers WHERE name = ?', [name])).changes > 0;
  }
}
