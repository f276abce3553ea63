import type { Db } from './db.js';
import type { Clock } from '../clock.js';
import { randomToken, sha256Hex } from '../crypto/tokens.js';
import { ReadCache } from './read-cache.js';
import { NAME_LIMITS, nameProblem } from '../names/index.js';

export const API_KEY_PREFIX = 'sk_live_';

/** Why `name` cannot name a key, or null: the one name rule (src/names), up to 64 characters. */
export function keyNameProblem(name: string): string | null {
  if (name.trim() === '') return 'Give the key a name, e.g. the server that will use it.';
  const problem = nameProblem(name, NAME_LIMITS.apiKey);
  return problem ? `The name ${problem}.` : null;
}

export interface ApiKeySummary {
  id: number;
  accountId: number;
  /** The owner's label for the key (null for keys made before keys had names). */
  name: string | null;
  prefix: string;
  last4: string;
  createdAt: string;
  lastUsedAt: string | null;
  revokedAt: string | null;
}

interface Row {
  id: number; account_id: number; name: string | null; prefix: string; last4: string;
  created_at: string; last_used_at: string | null; revoked_at: string | null;
}

const toSummary = (r: Row): ApiKeySummary => ({
  id: r.id, accountId: r.account_id, name: r.name, prefix: r.prefix, last4: r.last4,
  createdAt: r.created_at, lastUsedAt: r.last_used_at, revokedAt: r.revoked_at,
});

// Touching last_used_at on every request would turn each read into a write; once a minute is precise enough.
const LAST_USED_GRANULARITY_MS = 60_000;

/** Keys are stored only as SHA-256 hashes: the clear key exists once, in the create response. */
export class ApiKeyRepo {
  // Key hash → live key, so authenticating a request is no SQLite read; a revoke anywhere forgets it.
  readonly #byHash: ReadCache<ApiKeySummary>;

  constructor(private readonly db: Db, private readonly clock: Clock) {
    this.#byHash = new ReadCache(db);
  }

  create(accountId: number, name: string | null = null): { key: string; summary: ApiKeySummary } {
    const key = API_KEY_PREFIX + randomToken(32);
    this.#byHash.invalidate();
    const info = this.db
      .prepare('INSERT INTO api_keys (account_id, key_hash, name, prefix, last4, created_at) VALUES (?, ?, ?, ?, ?, ?)')
      .run(accountId, sha256Hex(key), name, key.slice(0, API_KEY_PREFIX.length + 4), key.slice(-4), this.#now());
    return { key, summary: this.get(Number(info.lastInsertRowid))! };
  }

  get(id: number): ApiKeySummary | undefined {
    const row = this.db.prepare('SELECT * FROM api_keys WHERE id = ?').get(id) as Row | undefined;
    return row && toSummary(row);
  }

  listForAccount(accountId: number): ApiKeySummary[] {
    return (this.db.prepare('SELECT * FROM api_keys WHERE account_id = ? ORDER BY id DESC').all(accountId) as Row[]).map(toSummary);
  }

  /** Looks the key up by its hash; the equality test happens on hashes (a map key or SQLite), never on clear keys. */
  authenticate(key: string): ApiKeySummary | undefined {
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    const hash = sha256Hex(key);
    const summary = this.#byHash.read(hash, () => {
      const row = this.db.prepare('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL').get(hash) as Row | undefined;
      return row && toSummary(row);
    });
    if (!summary) return undefined;
    if (!summary.lastUsedAt || this.clock.now() - Date.parse(summary.lastUsedAt) > LAST_USED_GRANULARITY_MS) {
      this.#byHash.invalidate();
      this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(this.#now(), summary.id);
    }
    return summary;
  }

  revoke(id: number, accountId?: number): boolean {
    this.#byHash.invalidate();
    const info = this.db
      .prepare('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND (? IS NULL OR account_id = ?)')
      .run(this.#now(), id, accountId ?? null, accountId ?? null);
    return info.changes === 1;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
