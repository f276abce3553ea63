import type { Db } from './db.js';
import type { Clock } from '../clock.js';
import { ReadCache } from './read-cache.js';

export interface Account {
  id: number;
  name: string;
  trunking: boolean;
  trunkCapacity: number;
  /** Outbound call placements allowed in any one-second window. */
  cpsCap: number;
  /** Operator switch: when off, recording control requests on live calls answer 503. */
  recordingControls: boolean;
  createdAt: string;
}

interface Row { id: number; name: string; trunking: number; trunk_capacity: number; cps_cap: number; recording_controls: number; created_at: string }

const toAccount = (r: Row): Account => ({
  id: r.id, name: r.name, trunking: r.trunking === 1, trunkCapacity: r.trunk_capacity, cpsCap: r.cps_cap,
  recordingControls: r.recording_controls === 1, createdAt: r.created_at,
});

type Changes = Partial<Pick<Account, 'name' | 'trunking' | 'trunkCapacity' | 'cpsCap' | 'recordingControls'>>;

export class AccountRepo {
  // Every authenticated request reads its account.
  readonly #cache: ReadCache<Account>;

  constructor(private readonly db: Db, private readonly clock: Clock) {
    this.#cache = new ReadCache(db);
  }

  create(input: { name: string; trunking: boolean; trunkCapacity: number }): Account {
    this.#cache.invalidate();
    const info = this.db
      .prepare('INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES (?, ?, ?, ?)')
      .run(input.name, input.trunking ? 1 : 0, input.trunkCapacity, new Date(this.clock.now()).toISOString());
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): Account | undefined {
    return this.#cache.read(String(id), () => {
      const row = this.db.prepare('SELECT * FROM accounts WHERE id = ?').get(id) as Row | undefined;
      return row && toAccount(row);
    });
  }

  signingSecretSealed(id: number): string | null {
    const row = this.db.prepare('SELECT signing_secret_enc FROM accounts WHERE id = ?').get(id) as { signing_secret_enc: string | null } | undefined;
    return row?.signing_secret_enc ?? null;
  }

  setSigningSecretSealed(id: number, sealed: string): void {
    this.#cache.invalidate();
    this.db.prepare('UPDATE accounts SET signing_secret_enc = ? WHERE id = ?').run(sealed, id);
  }

  list(): Account[] {
    return (this.db.prepare('SELECT * FROM accounts ORDER BY id').all() as Row[]).map(toAccount);
  }

  update(id: number, changes: Changes): Account | undefined {
    const current = this.get(id);
    if (!current) return undefined;
    const next = { ...current, ...changes };
    this.#cache.invalidate();
    this.db
      .prepare('UPDATE accounts SET name = ?, trunking = ?, trunk_capacity = ?, cps_cap = ?, recording_controls = ? WHERE id = ?')
      .run(next.name, next.trunking ? 1 : 0, next.trunkCapacity, next.cpsCap, next.recordingControls ? 1 : 0, id);
    return this.get(id);
  }
}
