// Organisation (= account) settings for the preview API: which hosts webhooks may target, and who may inject
// leads (a rotatable token plus an IP allow-list). Operators change them with `ringbase org ...`; the
// dashboard can put a UI on this same module.
import { isIP } from 'node:net';
import { hostnameProblem, type IpLiterals } from '../net/hostname.js';
import { rowLock, type SqlDb, type SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';
import { ReadCache, type CacheInvalidation } from '../store/read-cache.js';
import { constantTimeEqual, randomToken, sha256Hex } from '../crypto/tokens.js';
import { cidrContains, parseCidr } from '../net/index.js';
import { normalizeHost } from '../net/url-policy.js';

export interface OrgSettings {
  accountId: number;
  webhookHosts: string[];
  injectionIps: string[];
  injectionTokenSet: boolean;
  injectionTokenRotatedAt: string | null;
}

export class OrgSettingsError extends Error {
  override name = 'OrgSettingsError';
}

interface Row {
  account_id: number; webhook_hosts: string; injection_ips: string;
  injection_token_hash: string | null; injection_token_rotated_at: string | null;
}

type ListColumn = 'webhook_hosts' | 'injection_ips';

export const INJECTION_TOKEN_PREFIX = 'inj_';

/**
 * The token names its account (`inj_<account>_<random>`) so verification loads one row and compares hashes
 * in constant time, instead of searching for a matching hash.
 */
function parseInjectionToken(token: string): number | null {
  const m = /^inj_(\d{1,12})_[A-Za-z0-9_-]{20,100}$/.exec(token);
  return m ? Number(m[1]) : null;
}

/** A bare host or IP as the URL parser sees it, so entries compare like real target hosts. */
function canonicalHost(input: string): string {
  const bare = input.trim().replace(/^\[(.*)\]$/, '$1');
  try {
    return normalizeHost(new URL(`https://${isIP(bare) === 6 ? `[${bare}]` : bare}/`).hostname);
  } catch {
    throw new OrgSettingsError(`"${input}" is not a host name or IP address`);
  }
}

/** An entry to add: a host name by the one rule (no scheme, path, port, wildcard or userinfo; no bare TLD); IPs as the caller says. */
export function normalizeAllowedHost(input: string, ips: IpLiterals = 'any'): string {
  const problem = hostnameProblem(input.trim(), ips);
  if (problem) throw new OrgSettingsError(`"${input}" is not a host name we can allow: it ${problem} (give a bare host such as hooks.example.com)`);
  return canonicalHost(input);
}

/** Canonical `network/prefix` text (host bits cleared), so removing an entry matches however it was typed. */
export function normalizeCidr(input: string): string {
  const cidr = parseCidr(input.trim());
  if (!cidr) throw new OrgSettingsError(`"${input}" is not an IP address or CIDR block (e.g. 203.0.113.0/24)`);
  const bytes = [...cidr.network];
  const address = cidr.family === 4
    ? bytes.join('.')
    // The URL parser prints IPv6 in its canonical compressed form.
    : new URL(`http://[${bytes.map((b, i) => (i % 2 ? '' : ':') + b.toString(16).padStart(2, '0')).join('').slice(1)}]/`).hostname.slice(1, -1);
  return `${address}/${cidr.prefix}`;
}

export class OrgSettingsRepo {
  // Every webhook delivery attempt checks its account's allow-list.
  readonly #cache: ReadCache<OrgSettings>;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, changes: CacheInvalidation) {
    this.#cache = new ReadCache(changes, 'org_settings');
  }

  async get(accountId: number): Promise<OrgSettings> {
    return (await this.#cache.read(String(accountId), async () => {
      const row = await this.#row(this.sql, accountId);
      return {
        accountId,
        webhookHosts: row ? (JSON.parse(row.webhook_hosts) as string[]) : [],
        injectionIps: row ? (JSON.parse(row.injection_ips) as string[]) : [],
        injectionTokenSet: Boolean(row?.injection_token_hash),
        injectionTokenRotatedAt: row?.injection_token_rotated_at ?? null,
      };
    }))!;
  }

  // The list changes are async even where the input check alone refuses: a bad entry rejects, never throws.

  /** `ips`: which IP literals may be listed; the input surfaces pass the public-only rule (docs/security.md). */
  async allowHost(accountId: number, host: string, ips: IpLiterals = 'any'): Promise<OrgSettings> {
    return this.#add(accountId, 'webhook_hosts', normalizeAllowedHost(host, ips));
  }

  async removeHost(accountId: number, host: string): Promise<OrgSettings> {
    // Not held to the host name rule: an entry listed before the rule existed can still be removed.
    return this.#remove(accountId, 'webhook_hosts', canonicalHost(host), 'webhook host allow-list');
  }

  async allowIp(accountId: number, cidr: string): Promise<OrgSettings> {
    return this.#add(accountId, 'injection_ips', normalizeCidr(cidr));
  }

  async removeIp(accountId: number, cidr: string): Promise<OrgSettings> {
    return this.#remove(accountId, 'injection_ips', normalizeCidr(cidr), 'lead-injection IP allow-list');
  }

  /** Replaces the token; the clear value exists only in this return value, the row keeps its hash. */
  async rotateInjectionToken(accountId: number): Promise<string> {
    const token = `${INJECTION_TOKEN_PREFIX}${accountId}_${randomToken(32)}`;
    await this.#cache.write(this.sql, async (tx) => {
      await this.#ensure(tx, accountId);
      await tx.run('UPDATE org_settings SET injection_token_hash = ?, injection_token_rotated_at = ?, updated_at = ? WHERE account_id = ?',
        [sha256Hex(token), this.#now(), this.#now(), accountId]);
    });
    return token;
  }

  /** The account the token belongs to, or null for any wrong, malformed or superseded token. */
  async accountForInjectionToken(token: string): Promise<number | null> {
    const accountId = parseInjectionToken(token);
    const stored = accountId === null ? undefined : (await this.#row(this.sql, accountId))?.injection_token_hash;
    if (!stored) return null;
    return constantTimeEqual(sha256Hex(token), stored) ? accountId : null;
  }

  async injectionIpAllowed(accountId: number, ip: string): Promise<boolean> {
    return (await this.get(accountId)).injectionIps.some((cidr) => cidrContains(cidr, ip));
  }

  #add(accountId: number, column: ListColumn, entry: string): Promise<OrgSettings> {
    return this.#updateList(accountId, column, (list) => (list.includes(entry) ? list : [...list, entry]));
  }

  #remove(accountId: number, column: ListColumn, entry: string, listName: string): Promise<OrgSettings> {
    return this.#updateList(accountId, column, (list) => {
      if (!list.includes(entry)) throw new OrgSettingsError(`${entry} is not on the ${listName}`);
      return list.filter((x) => x !== entry);
    });
  }

  /** Read, changed and written in one transaction, the row locked, so two changes at once (two nodes) both count. */
  async #updateList(accountId: number, column: ListColumn, change: (list: string[]) => string[]): Promise<OrgSettings> {
    await this.#cache.write(this.sql, async (tx) => {
      await this.#ensure(tx, accountId);
      const current = JSON.parse((await this.#row(tx, accountId, rowLock(tx)))![column]) as string[];
      await tx.run(`UPDATE org_settings SET ${column} = ?, updated_at = ? WHERE account_id = ?`,
        [JSON.stringify(change(current)), this.#now(), accountId]);
    });
    return this.get(accountId);
  }

  async #ensure(tx: SqlQueries, accountId: number): Promise<void> {
    await tx.run('INSERT INTO org_settings (account_id, updated_at) VALUES (?, ?) ON CONFLICT DO NOTHING', [accountId, this.#now()]);
  }

  #row(q: SqlQueries, accountId: number, lock = ''): Promise<Row | undefined> {
    return q.one<Row>(`SELECT * FROM org_settings WHERE account_id = ?${lock}`, [accountId]);
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
