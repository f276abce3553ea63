// Retry schedule for failed deliveries (documented in docs/events.md): retry n waits
// min(BASE * 2^(n-1), CAP), scaled by a random factor in [1 - JITTER, 1 + JITTER) so that retries of many
// deliveries that failed together (a receiver outage) do not all arrive at the same instant.
export const BACKOFF_BASE_MS = 30_000;
export const BACKOFF_CAP_MS = 60 * 60_000;
export const BACKOFF_JITTER = 0.2;

/** Milliseconds to wait before retry number `retry` (1 = the first retry). `random` returns [0, 1). */
export function retryDelayMs(retry: number, random: () => number = Math.random): number {
  const nominal = Math.min(BACKOFF_BASE_MS * 2 ** Math.max(0, retry - 1), BACKOFF_CAP_MS);
  return Math.round(nominal * (1 - BACKOFF_JITTER + 2 * BACKOFF_JITTER * random()));
}
