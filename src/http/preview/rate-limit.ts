// Fixed-window request counting per key on the injected clock. In memory on SQLite, where one process serves the
// API (a restart forgives the current window, which is acceptable for abuse protection, not for billing); on
// PostgreSQL shared by every control plane (shared-rate-limit.ts), under the same rules.
import type { Clock } from '../../clock.js';

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Unix epoch seconds at which the current window ends. */
  resetAt: number;
  /** Whole seconds until a request can succeed again (0 when allowed). */
  retryAfter: number;
}

/** Counts requests per key in windows of a fixed length aligned on the clock (every node agrees where one starts). */
export interface RateLimiter {
  readonly limit: number;
  take(key: string): RateDecision | Promise<RateDecision>;
}

interface Window { startedAt: number; count: number }

/** The window `now` falls in: its start, aligned on multiples of its length. */
export const windowStart = (now: number, windowMs: number) => now - (now % windowMs);

/** The decision for a request that made `count` requests in the window started at `startedAt` (allowed up to `limit`). */
export function windowDecision(limit: number, windowMs: number, startedAt: number, count: number, now: number): RateDecision {
  const endsAt = startedAt + windowMs;
  const allowed = count <= limit;
  return {
    allowed, limit, remaining: Math.max(0, limit - count), resetAt: Math.ceil(endsAt / 1000),
    retryAfter: allowed ? 0 : Math.max(1, Math.ceil((endsAt - now) / 1000)),
  };
}

const SWEEP_THRESHOLD = 10_000;

export class FixedWindowLimiter implements RateLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(private readonly clock: Clock, readonly limit: number, private readonly windowMs: number) {}

  take(key: string): RateDecision {
    const now = this.clock.now();
    if (this.#windows.size > SWEEP_THRESHOLD) this.#sweep(now);
    let w = this.#windows.get(key);
    if (!w || now - w.startedAt >= this.windowMs) {
      w = { startedAt: windowStart(now, this.windowMs), count: 0 };
      this.#windows.set(key, w);
    }
    // Refused requests are not counted: the count stays at the limit.
    const decision = windowDecision(this.limit, this.windowMs, w.startedAt, w.count + 1, now);
    if (decision.allowed) w.count++;
    return decision;
  }

  #sweep(now: number): void {
    for (const [key, w] of this.#windows) if (now - w.startedAt >= this.windowMs) this.#windows.delete(key);
  }
}
