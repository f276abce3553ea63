// Failed API-key attempts counted per source (an address bucket, src/net/address-bucket.ts) in a fixed window
// that opens at the first failure. Past the limit the source's failures answer 429 until the window ends. Keys
// that authenticated from the source lately stay usable meanwhile, so one broken script behind an office NAT does
// not lock its colleagues out; keys never seen from there (valid or not) get the 429, so a list of leaked keys
// cannot be tested at full speed either. AuthThrottle keeps this in memory, bounded: the SQLite store's one process
// serves the API, and a restart forgiving a window is acceptable for abuse protection. On PostgreSQL the control
// planes share it through the database (shared-auth-throttle.ts).
import type { Clock } from '../clock.js';

export interface AuthThrottleOptions {
  /** Failures allowed per source per window. */
  limit: number;
  windowMs: number;
  /** Sources (and source/key pairs) remembered at most; the oldest are forgotten first. */
  maxEntries?: number;
  /** How long a key that authenticated from a source stays exempt there. */
  knownKeyMs?: number;
}

/** What the API keys' and the operator tokens' checks ask, whichever process or database keeps the counts. */
export interface AuthFailureLimit {
  /**
   * A valid credential (`keyId`: an API key's id, or a token's) presented from `source`: 0 when it may be used (the
   * source is within its limit, or the key worked from there lately), and it is then remembered as known there;
   * else the whole seconds until the source's window ends.
   */
  admit(source: string, keyId: number): Promise<number>;
  /** A wrong credential: 0 when it is counted within the limit (a plain refusal), else the seconds to wait (429). */
  fail(source: string): Promise<number>;
}

interface Window { startedAt: number; failures: number }

export const DEFAULT_MAX_ENTRIES = 10_000;
export const DEFAULT_KNOWN_KEY_MS = 24 * 3600_000;
/** A known key's time is renewed at most this often, not on every request: a day's exemption ending a minute early is no matter. */
export const RENEW_AFTER_MS = 60_000;

/** Drops `map`'s expired entries from the front (the map is kept in expiry order), then the oldest while it holds `max`, making room for one more. */
export function forgetOldest<V>(map: Map<string, V>, expired: (value: V) => boolean, max: number): void {
  for (const [key, value] of map) {
    if (!expired(value) && map.size < max) break;
    map.delete(key);
  }
}

export class AuthThrottle implements AuthFailureLimit {
  // Both maps are kept in expiry order (an entry is re-inserted when renewed), so the first entry is always
  // the next to expire and the one to forget when full: pruning and eviction cost O(1) per insert.
  readonly #windows = new Map<string, Window>();
  readonly #knownKeys = new Map<string, number>();
  readonly #limit: number;
  readonly #windowMs: number;
  readonly #maxEntries: number;
  readonly #knownKeyMs: number;

  constructor(private readonly clock: Clock, opts: AuthThrottleOptions) {
    this.#limit = opts.limit;
    this.#windowMs = opts.windowMs;
    this.#maxEntries = opts.maxEntries ?? DEFAULT_MAX_ENTRIES;
    this.#knownKeyMs = opts.knownKeyMs ?? DEFAULT_KNOWN_KEY_MS;
  }

  async admit(source: string, keyId: number): Promise<number> {
    const wait = this.retryAfter(source);
    if (wait > 0 && !this.knows(source, keyId)) return wait;
    this.recordSuccess(source, keyId);
    return 0;
  }

  async fail(source: string): Promise<number> {
    const wait = this.retryAfter(source);
    if (wait === 0) this.recordFailure(source);
    return wait;
  }

  /** Whole seconds until the source's window ends when it is over the limit; 0 when it may still fail. */
  retryAfter(source: string): number {
    const w = this.#liveWindow(source);
    if (!w || w.failures < this.#limit) return 0;
    return Math.max(1, Math.ceil((w.startedAt + this.#windowMs - this.clock.now()) / 1000));
  }

  recordFailure(source: string): void {
    const w = this.#liveWindow(source);
    if (w) { w.failures++; return; }
    const now = this.clock.now();
    forgetOldest(this.#windows, (x) => now - x.startedAt >= this.#windowMs, this.#maxEntries);
    this.#windows.set(source, { startedAt: now, failures: 1 });
  }

  /** A success does not reset the count: holding one valid key must not buy unlimited guesses at others. */
  recordSuccess(source: string, keyId: number): void {
    const id = `${source} ${keyId}`;
    const now = this.clock.now();
    const seenAt = this.#knownKeys.get(id);
    if (seenAt !== undefined && now - seenAt < RENEW_AFTER_MS) return;
    this.#knownKeys.delete(id);
    forgetOldest(this.#knownKeys, (seenAt) => now - seenAt >= this.#knownKeyMs, this.#maxEntries);
    this.#knownKeys.set(id, now);
  }

  knows(source: string, keyId: number): boolean {
    const seenAt = this.#knownKeys.get(`${source} ${keyId}`);
    return seenAt !== undefined && this.clock.now() - seenAt < this.#knownKeyMs;
  }

  #liveWindow(source: string): Window | undefined {
    const w = this.#windows.get(source);
    if (w && this.clock.now() - w.startedAt >= this.#windowMs) {
      this.#windows.delete(source);
      return undefined;
    }
    return w;
  }
}
