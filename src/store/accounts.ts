import { rowLock, type SqlDb } from './sql.js';
import type { Clock } from '../clock.js';
import { ReadCache, type CacheInvalidation } from './read-cache.js';

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

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, changes: CacheInvalidation) {
    this.#cache = new ReadCache(changes, 'accounts');
  }

  async create(input: { name: string; trunking: boolean; trunkCapacity: number }): Promise<Account> {
    const row = await this.#cache.write(this.sql, (tx) => tx.one<Row>(
      'INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES (?, ?, ?, ?) RETURNING *',
      [input.name, input.trunking ? 1 : 0, input.trunkCapacity, new Date(this.clock.now()).toISOString()],
    ));
    return toAccount(row!);
  }

  get(id: number): Promise<Account | undefined> {
    return this.#cache.read(String(id), async () => {
      const row = await this.sql.one<Row>('SELECT * FROM accounts WHERE id = ?', [id]);
      return row && toAccount(row);
    });
  }

  async signingSecretSealed(id: number): Promise<string | null> {
    const row = await this.sql.one<{ signing_secret_enc: string | null }>('SELECT signing_secret_enc FROM accounts WHERE id = ?', [id]);
    return row?.signing_secret_enc ?? null;
  }

  // The secret is not part of Account, so its writes leave the cache alone.
  async setSigningSecretSealed(id: number, sealed: string): Promise<void> {
    await this.sql.run('UPDATE accounts SET signing_secret_enc = ? WHERE id = ?', [sealed, id]);
  }

  /** Stores `sealed` only if the account has no secret yet, and returns the one stored: the first of two racing first uses wins. */
  async initSigningSecretSealed(id: number, sealed: string): Promise<string | null> {
    await this.sql.run('UPDATE accounts SET signing_secret_enc = ? WHERE id = ? AND signing_secret_enc IS NULL', [sealed, id]);
    return this.signingSecretSealed(id);
  }

  async list(): Promise<Account[]> {
    return (await this.sql.all<Row>('SELECT * FROM accounts ORDER BY id')).map(toAccount);
  }

  /** Reads and writes the row in one transaction, the row locked, so concurrent updates of other fields are kept. */
  async update(id: number, changes: Changes): Promise<Account | undefined> {
    const row = await this.#cache.write(this.sql, async (tx) => {
      const current = await tx.one<Row>(`SELECT * FROM accounts WHERE id = ?${rowLock(tx)}`, [id]);
      if (!current) return undefined;
      const next = { ...toAccount(current), ...changes };
      return tx.one<Row>(
        'UPDATE accounts SET name = ?, trunking = ?, trunk_capacity = ?, cps_cap = ?, recording_controls = ? WHERE id = ? RETURNING *',
        [next.name, next.trunking ? 1 : 0, next.trunkCapacity, next.cpsCap, next.recordingControls ? 1 : 0, id],
      );
    });
    return row && toAccount(row);
  }
}
