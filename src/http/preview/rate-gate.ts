// Applies the limiter to a request: X-RateLimit-* on every response, 429 with Retry-After past the limit.
import { previewErrors } from '../errors.js';
import { rateLimitHeaders } from '../rate-limit-headers.js';
import type { RateLimiter } from './rate-limit.js';

export class RateGate {
  constructor(private readonly limiter: RateLimiter) {}

  async check(key: string, reply: { header(name: string, value: string): unknown }): Promise<void> {
    const d = await this.limiter.take(key);
    if (!d.allowed) throw previewErrors.rateLimited(d, d.retryAfter);
    for (const [name, value] of Object.entries(rateLimitHeaders(d))) reply.header(name, value);
  }
}
