import type { Db } from './db.js';
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
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  add(c: { name: string; host: string; port: number | null; prefix?: string | null }): Carrier {
    if (this.byName(c.name)) throw new CarrierNameTakenError(c.name);
    const info = this.db.prepare('INSERT INTO carriers (name, host, port, prefix, created_at) VALUES (?, ?, ?, ?, ?)')
      .run(c.name, c.host, c.port, c.prefix ?? null, new Date(this.clock.now()).toISOString());
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): Carrier | undefined {
    const row = this.db.prepare('SELECT * FROM carriers WHERE id = ?').get(id) as Row | undefined;
    return row && toCarrier(row);
  }

  byName(name: string): Carrier | undefined {
    const row = this.db.prepare('SELECT * FROM carriers WHERE name = ?').get(name) as Row | undefined;
    return row && toCarrier(row);
  }

  /** Read on every call by the engine, so a carrier added with the CLI while the server runs counts at once. */
  list(): Carrier[] {
    return (this.db.prepare('SELECT * FROM carriers ORDER BY id').all() as Row[]).map(toCarrier);
  }

  remove(name: string): boolean {
    return this.db.prepare('DELETE FROM carriers WHERE name = ?').run(name).changes > 0;
  }
}
