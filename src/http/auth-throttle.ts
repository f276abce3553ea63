// Failed API-key attempts counted per source (an address bucket, src/net/address-bucket.ts) in a fixed window
// that opens at the first failure. Past the limit the source's failures answer 429 until the window ends. Keys
// that authenticated from the source lately stay usable meanwhile, so one broken script behind an office NAT does
// not lock its colleagues out; keys never seen from there (valid or not) get the 429, so a list of leaked keys
// cannot be tested at full speed either. In memory and bounded: one process serves the API, and a restart
// forgiving a window is acceptable for abuse protection.
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

interface Window { startedAt: number; failures: number }

const DEFAULT_MAX_ENTRIES = 10_000;
const DEFAULT_KNOWN_KEY_MS = 24 * 3600_000;
const RENEW_AFTER_MS = 60_000;

export class AuthThrottle {
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
    this.#prune(this.#windows, (x) => now - x.startedAt >= this.#windowMs);
    this.#windows.set(source, { startedAt: now, failures: 1 });
  }

  /** A success does not reset the count: holding one valid key must not buy unlimited guesses at others. */
  recordSuccess(source: string, keyId: number): void {
    const id = `${source} ${keyId}`;
    const now = this.clock.now();
    // Renewed at most once a minute, not on every request: a day's exemption ending a minute early is no matter.
    const seenAt = this.#knownKeys.get(id);
    if (seenAt !== undefined && now - seenAt < RENEW_AFTER_MS) return;
    this.#knownKeys.delete(id);
    this.#prune(this.#knownKeys, (seenAt) => now - seenAt >= this.#knownKeyMs);
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

  /** Drops expired entries from the front, then the oldest while full, making room for one more. */
  #prune<V>(map: Map<string, V>, expired: (value: V) => boolean): void {
    for (const [key, value] of map) {
      if (!expired(value) && map.size < this.#maxEntries) break;
      map.delete(key);
    }
  }
}
