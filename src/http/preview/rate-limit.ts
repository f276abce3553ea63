// Fixed-window request counting per key on the injected clock. In memory: one process serves the API; a
// restart forgives the current window, which is acceptable for abuse protection (not for billing).
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

interface Window { startedAt: number; count: number }

const SWEEP_THRESHOLD = 10_000;

export class FixedWindowLimiter {
  readonly #windows = new Map<string, Window>();

  constructor(private readonly clock: Clock, readonly limit: number, private readonly windowMs: number) {}

  take(key: string): RateDecision {
    const now = this.clock.now();
    if (this.#windows.size > SWEEP_THRESHOLD) this.#sweep(now);
    let w = this.#windows.get(key);
    if (!w || now - w.startedAt >= this.windowMs) {
      w = { startedAt: now - (now % this.windowMs), count: 0 };
      this.#windows.set(key, w);
    }
    const endsAt = w.startedAt + this.windowMs;
    const allowed = w.count < this.limit;
    if (allowed) w.count++;
    return {
      allowed,
      limit: this.limit,
      remaining: Math.max(0, this.limit - w.count),
      resetAt: Math.ceil(endsAt / 1000),
      retryAfter: allowed ? 0 : Math.max(1, Math.ceil((endsAt - now) / 1000)),
    };
  }

  #sweep(now: number): void {
    for (const [key, w] of this.#windows) if (now - w.startedAt >= this.windowMs) this.#windows.delete(key);
  }
}
