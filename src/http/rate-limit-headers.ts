// The spec's rate-limit headers ("Limits"), written the same way by every limiter: the preview API's per-key
// window and the live API's calls-per-second cap.

export interface RateLimitState {
  limit: number;
  remaining: number;
  /** Unix epoch seconds at which capacity frees up again. */
  resetAt: number;
}

export function rateLimitHeaders(s: RateLimitState): Record<string, string> {
  return {
    'x-ratelimit-limit': String(s.limit),
    'x-ratelimit-remaining': String(s.remaining),
    'x-ratelimit-reset': String(s.resetAt),
  };
}

/** What a 429 carries: the state above plus how long to wait, in whole seconds. */
export function refusedHeaders(s: RateLimitState, retryAfterSeconds: number): Record<string, string> {
  return { ...rateLimitHeaders(s), 'retry-after': String(retryAfterSeconds) };
}
