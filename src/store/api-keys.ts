import type { SqlDb } from './sql.js';
import type { Clock } from '../clock.js';
import { randomToken, sha256Hex } from '../crypto/tokens.js';
import { ReadCache, type CacheInvalidation } from './read-cache.js';
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
  // Key hash → live key, so authenticating a request is no database read; a revoke anywhere forgets it.
  readonly #byHash: ReadCache<ApiKeySummary>;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, changes: CacheInvalidation) {
    this.#byHash = new ReadCache(changes, 'api_keys');
  }

  async create(accountId: number, name: string | null = null): Promise<{ key: string; summary: ApiKeySummary }> {
    const key = API_KEY_PREFIX + randomToken(32);
    const row = await this.#byHash.write(this.sql, (tx) => tx.one<Row>(
      'INSERT INTO api_keys (account_id, key_hash, name, prefix, last4, created_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING *',
      [accountId, sha256Hex(key), name, key.slice(0, API_KEY_PREFIX.length + 4), key.slice(-4), this.#now()],
    ));
    return { key, summary: toSummary(row!) };
  }

  async get(id: number): Promise<ApiKeySummary | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM api_keys WHERE id = ?', [id]);
    return row && toSummary(row);
  }

  async listForAccount(accountId: number): Promise<ApiKeySummary[]> {
    return (await this.sql.all<Row>('SELECT * FROM api_keys WHERE account_id = ? ORDER BY id DESC', [accountId])).map(toSummary);
  }

  /** Looks the key up by its hash; the equality test happens on hashes (a map key or the database), never on clear keys. */
  async authenticate(key: string): Promise<ApiKeySummary | undefined> {
    if (!key.startsWith(API_KEY_PREFIX)) return undefined;
    const hash = sha256Hex(key);
    const summary = await this.#byHash.read(hash, async () => {
      const row = await this.sql.one<Row>('SELECT * FROM api_keys WHERE key_hash = ? AND revoked_at IS NULL', [hash]);
      return row && toSummary(row);
    });
    if (!summary) return undefined;
    if (!summary.lastUsedAt || this.clock.now() - Date.parse(summary.lastUsedAt) > LAST_USED_GRANULARITY_MS) {
      // Not announced to other processes: their remembered last use is older, so each touches it at most once a
      // minute too, and no key's validity depends on it.
      this.#byHash.invalidate();
      await this.sql.run('UPDATE api_keys SET last_used_at = ? WHERE id = ?', [this.#now(), summary.id]);
      this.#byHash.invalidate();
    }
    return summary;
  }

  /** `accountId`: only a key of that account is revoked. */
  async revoke(id: number, accountId?: number): Promise<boolean> {
    const result = await this.#byHash.write(this.sql, (tx) => (accountId === undefined
      ? tx.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL', [this.#now(), id])
      : tx.run('UPDATE api_keys SET revoked_at = ? WHERE id = ? AND revoked_at IS NULL AND account_id = ?', [this.#now(), id, accountId])));
    return result.changes === 1;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
