// Failed dashboard sign-ins counted per (email as typed, source address bucket), never per user: someone at
// another address cannot lock a user out, and an email that has no user is counted exactly like one that has,
// so the answers reveal nothing about which emails exist. After FREE_FAILURES failures each further failure
// doubles the wait before the pair may try again (2 s, 4 s, ... up to MAX_WAIT_S); a success clears the pair.
// SignInDelays keeps the pairs in memory, bounded (docs/security.md, "Authentication"): a restart forgives, which
// is acceptable for a delay whose job is to make guessing slow, and the oldest pairs are forgotten first when the
// table is full. That is the SQLite store's, whose one process serves the dashboard; on PostgreSQL the control
// planes share the pairs through the database (shared-sign-in-delays.ts).
import type { Clock } from '../clock.js';

export const FREE_FAILURES = 5;
export const MAX_WAIT_S = 15 * 60;
/** A pair quiet this long since its last failure starts again from zero. */
export const FORGET_MS = 24 * 3600_000;
export const DEFAULT_MAX_PAIRS = 10_000;

/** What the sign-in asks, whichever process or database keeps the pairs. */
export interface SignInDelayLimit {
  /** Whole seconds the pair must still wait before its next attempt; 0 when it may try now. */
  waitFor(email: string, source: string): Promise<number>;
  /** Counts a failure; returns how many seconds the pair must now wait (0 within the free failures). */
  recordFailure(email: string, source: string): Promise<number>;
  clear(email: string, source: string): Promise<void>;
}

/** Seconds a pair waits after its `failures`-th failure in a row. */
export function waitAfter(failures: number): number {
  return failures < FREE_FAILURES ? 0 : Math.min(2 ** (failures - FREE_FAILURES + 1), MAX_WAIT_S);
}

interface Pair { failures: number; lastFailureAt: number; nextAttemptAt: number }

export class SignInDelays implements SignInDelayLimit {
  // Kept in order of last failure (re-inserted on each), so the first entry is the stalest: pruning and eviction
  // cost O(1) per failure.
  readonly #pairs = new Map<string, Pair>();

  constructor(private readonly clock: Clock, private readonly maxPairs = DEFAULT_MAX_PAIRS) {}

  async waitFor(email: string, source: string): Promise<number> {
    const pair = this.#live(pairKey(email, source));
    return pair ? secondsUntil(pair.nextAttemptAt, this.clock.now()) : 0;
  }

  async recordFailure(email: string, source: string): Promise<number> {
    const key = pairKey(email, source);
    const now = this.clock.now();
    const failures = (this.#live(key)?.failures ?? 0) + 1;
    const waitS = waitAfter(failures);
    this.#pairs.delete(key);
    for (const [k, p] of this.#pairs) {
      if (now - p.lastFailureAt < FORGET_MS && this.#pairs.size < this.maxPairs) break;
      this.#pairs.delete(k);
    }
    this.#pairs.set(key, { failures, lastFailureAt: now, nextAttemptAt: now + waitS * 1000 });
    return waitS;
  }

  async clear(email: string, source: string): Promise<void> {
    this.#pairs.delete(pairKey(email, source));
  }

  #live(key: string): Pair | undefined {
    const pair = this.#pairs.get(key);
    if (pair && this.clock.now() - pair.lastFailureAt >= FORGET_MS) {
      this.#pairs.delete(key);
      return undefined;
    }
    return pair;
  }
}

// Emails are matched without regard to case (the users table's COLLATE NOCASE), so the count is too.
export function countedEmail(email: string): string {
  return email.trim().toLowerCase();
}

function pairKey(email: string, source: string): string {
  return `${countedEmail(email)}\n${source}`;
}

export function secondsUntil(atMs: number, nowMs: number): number {
  return atMs <= nowMs ? 0 : Math.ceil((atMs - nowMs) / 1000);
}
