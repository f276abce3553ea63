import type { Clock } from '../clock.js';

const WINDOW_MS = 1_000;

/**
 * Calls-per-second cap per account as a sliding log: a placement is allowed only if fewer than `cap`
 * placements happened in the last second, so no one-second window ever holds more than the cap.
 */
export class CpsLimiter {
  readonly #recent = new Map<number, number[]>();

  constructor(private readonly clock: Clock) {}

  /**
   * On success, `at` is the instant the slot was granted: the call's creation time, so records match the cap.
   * On refusal, `resetAt` (Unix epoch seconds) is when the oldest placement leaves the window and frees a slot.
   */
  take(accountId: number, cap: number): { ok: true; at: number } | { ok: false; retryAfterSeconds: number; resetAt: number } {
    const now = this.clock.now();
    const stamps = (this.#recent.get(accountId) ?? []).filter((t) => now - t < WINDOW_MS);
    if (stamps.length >= cap) {
      this.#recent.set(accountId, stamps);
      const freesAt = stamps[0]! + WINDOW_MS;
      return { ok: false, retryAfterSeconds: Math.max(1, Math.ceil((freesAt - now) / 1000)), resetAt: Math.ceil(freesAt / 1000) };
    }
    stamps.push(now);
    this.#recent.set(accountId, stamps);
    return { ok: true, at: now };
  }
}
