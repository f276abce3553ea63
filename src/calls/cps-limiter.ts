import type { Clock } from '../clock.js';

/** How far back the sliding log looks: no window of this length ever holds more admissions than the cap. */
export const CPS_WINDOW_MS = 1_000;

/**
 * On success, `at` is the instant the slot was granted: the call's creation time, so records match the cap.
 * On refusal, `resetAt` (Unix epoch seconds) is when the oldest placement leaves the window and frees a slot.
 */
export type CpsSlot = { ok: true; at: number } | { ok: false; retryAfterSeconds: number; resetAt: number };

/** The calls-per-second cap per account, as the API routes that place calls ask it. */
export interface CallsPerSecondCap {
  take(accountId: number, cap: number): Promise<CpsSlot>;
}

/** The refusal for a full window whose oldest admission was at `oldest`. */
export function cpsRefusal(oldest: number, now: number): CpsSlot & { ok: false } {
  const freesAt = oldest + CPS_WINDOW_MS;
  return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)), resetAt: Math.ceil(freesAt / 1000) };
}

/**
 * Calls-per-second cap per account as a sliding log: a placement is allowed only if fewer than `cap`
 * placements happened in the last second, so no one-second window ever holds more than the cap. In this process's
 * memory: the limiter of the SQLite store, whose one process places every call (PostgreSQL's: shared-cps-limiter.ts).
 */
export class CpsLimiter implements CallsPerSecondCap {
  readonly #recent = new Map<number, number[]>();

  constructor(private readonly clock: Clock) {}

  async take(accountId: number, cap: number): Promise<CpsSlot> {
    const now = this.clock.now();
    const stamps = (this.#recent.get(accountId) ?? []).filter((t) => now - t < CPS_WINDOW_MS);
    this.#recent.set(accountId, stamps);
    if (stamps.length >= cap) return cpsRefusal(stamps[0]!, now);
    stamps.push(now);
    return { ok: true, at: now };
  }
}
