import type { SqlDb, SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';
import { DEFAULT_NUMBER_SETTINGS, type NumberSettings } from './settings.js';

export interface PhoneNumber {
  id: number;
  e164: string;
  accountId: number | null;
  settings: NumberSettings;
  createdAt: string;
  claimedAt: string | null;
}

interface Row { id: number; e164: string; account_id: number | null; settings: string; created_at: string; claimed_at: string | null }

// Stored settings are merged over the defaults, so settings added by later versions get their default values.
const toNumber = (r: Row): PhoneNumber => ({
  id: r.id, e164: r.e164, accountId: r.account_id,
  settings: { ...DEFAULT_NUMBER_SETTINGS, ...(JSON.parse(r.settings) as Partial<NumberSettings>) },
  createdAt: r.created_at, claimedAt: r.claimed_at,
});

export class NumberRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** Undefined when the number is in the pool already (its unique index decides between concurrent adds). */
  async add(e164: string, accountId: number | null, settings: NumberSettings): Promise<PhoneNumber | undefined> {
    const now = this.#now();
    const row = await this.sql.one<Row>('INSERT INTO numbers (e164, account_id, settings, created_at, claimed_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT DO NOTHING RETURNING *',
      [e164, accountId, JSON.stringify(settings), now, accountId === null ? null : now]);
    return row && toNumber(row);
  }

  async getById(id: number): Promise<PhoneNumber | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM numbers WHERE id = ?', [id]);
    return row && toNumber(row);
  }

  /** `q`: a caller's transaction that reads the number (a check of the caller ID it dials from). */
  async getByE164(e164: string, q: SqlQueries = this.sql): Promise<PhoneNumber | undefined> {
    const row = await q.one<Row>('SELECT * FROM numbers WHERE e164 = ?', [e164]);
    return row && toNumber(row);
  }

  async listForAccount(accountId: number): Promise<PhoneNumber[]> {
    return (await this.sql.all<Row>('SELECT * FROM numbers WHERE account_id = ? ORDER BY e164', [accountId])).map(toNumber);
  }

  async listUnclaimed(): Promise<PhoneNumber[]> {
    return (await this.sql.all<Row>('SELECT * FROM numbers WHERE account_id IS NULL ORDER BY e164')).map(toNumber);
  }

  async listAll(): Promise<PhoneNumber[]> {
    return (await this.sql.all<Row>('SELECT * FROM numbers ORDER BY e164')).map(toNumber);
  }

  /** Claims only an unclaimed number: two accounts racing for one number cannot both win (the update's condition). */
  async claim(id: number, accountId: number): Promise<boolean> {
    return (await this.sql.run('UPDATE numbers SET account_id = ?, claimed_at = ? WHERE id = ? AND account_id IS NULL', [accountId, this.#now(), id])).changes === 1;
  }

  /** Back to the pool with default settings: the next holder must not inherit this one's webhook. */
  async release(id: number): Promise<void> {
    await this.sql.run('UPDATE numbers SET account_id = NULL, claimed_at = NULL, settings = ? WHERE id = ?', [JSON.stringify(DEFAULT_NUMBER_SETTINGS), id]);
  }

  async saveSettings(id: number, settings: NumberSettings): Promise<PhoneNumber> {
    const row = await this.sql.one<Row>('UPDATE numbers SET settings = ? WHERE id = ? RETURNING *', [JSON.stringify(settings), id]);
    return toNumber(row!);
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
