import type { Db } from './db.js';
import type { Clock } from '../clock.js';
import { DEFAULT_NUMBER_SETTINGS, type NumberSettings } from '../numbers/settings.js';

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
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  add(e164: string, accountId: number | null, settings: NumberSettings): PhoneNumber {
    const now = this.#now();
    const info = this.db
      .prepare('INSERT INTO numbers (e164, account_id, settings, created_at, claimed_at) VALUES (?, ?, ?, ?, ?)')
      .run(e164, accountId, JSON.stringify(settings), now, accountId === null ? null : now);
    return this.getById(Number(info.lastInsertRowid))!;
  }

  getById(id: number): PhoneNumber | undefined {
    const row = this.db.prepare('SELECT * FROM numbers WHERE id = ?').get(id) as Row | undefined;
    return row && toNumber(row);
  }

  getByE164(e164: string): PhoneNumber | undefined {
    const row = this.db.prepare('SELECT * FROM numbers WHERE e164 = ?').get(e164) as Row | undefined;
    return row && toNumber(row);
  }

  listForAccount(accountId: number): PhoneNumber[] {
    return (this.db.prepare('SELECT * FROM numbers WHERE account_id = ? ORDER BY e164').all(accountId) as Row[]).map(toNumber);
  }

  listUnclaimed(): PhoneNumber[] {
    return (this.db.prepare('SELECT * FROM numbers WHERE account_id IS NULL ORDER BY e164').all() as Row[]).map(toNumber);
  }

  listAll(): PhoneNumber[] {
    return (this.db.prepare('SELECT * FROM numbers ORDER BY e164').all() as Row[]).map(toNumber);
  }

  /** Claims only an unclaimed number: two accounts racing for one number cannot both win. */
  claim(id: number, accountId: number): boolean {
    return this.db
      .prepare('UPDATE numbers SET account_id = ?, claimed_at = ? WHERE id = ? AND account_id IS NULL')
      .run(accountId, this.#now(), id).changes === 1;
  }

  /** Back to the pool with default settings: the next holder must not inherit this one's webhook. */
  release(id: number): void {
    this.db
      .prepare('UPDATE numbers SET account_id = NULL, claimed_at = NULL, settings = ? WHERE id = ?')
      .run(JSON.stringify(DEFAULT_NUMBER_SETTINGS), id);
  }

  saveSettings(id: number, settings: NumberSettings): PhoneNumber {
    this.db.prepare('UPDATE numbers SET settings = ? WHERE id = ?').run(JSON.stringify(settings), id);
    return this.getById(id)!;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
