// Applies the limiter to a request: X-RateLimit-* on every response, 429 with Retry-After past the limit.
import { previewErrors } from '../errors.js';
import type { FixedWindowLimiter } from './rate-limit.js';

export class RateGate {
  constructor(private readonly limiter: FixedWindowLimiter) {}

  check(key: string, reply: { header(name: string, value: string): unknown }): void {
    const d = this.limiter.take(key);
    reply.header('x-ratelimit-limit', String(d.limit));
    reply.header('x-ratelimit-remaining', String(d.remaining));
    reply.header('x-ratelimit-reset', String(d.resetAt));
    if (!d.allowed) throw previewErrors.rateLimited(d.limit, d.retryAfter);
  }
}
