import type { FastifyRequest } from 'fastify';
import type { Account } from '../store/accounts.js';
import type { Store } from '../store/index.js';
import { addressBucket } from '../net/address-bucket.js';
import type { AuthThrottle } from './auth-throttle.js';
import { errors } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account;
    apiKeyId: number;
  }
}

/**
 * The key in an Authorization header: null when none is given (no header, a blank one, or the scheme alone,
 * as `Bearer ` arrives once Node has trimmed the value), undefined when the header is not `Bearer <key>`.
 */
function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined || /^\s*(bearer\s*)?$/i.test(header)) return null;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

/**
 * Bearer API key authentication shared by the live and preview roots. Failed keys count against the source
 * address (`clientIp`: the TCP peer, or the client a trusted proxy names); past the limit they answer 429.
 */
export function bearerAuth(store: Store, throttle: AuthThrottle, clientIp: (req: FastifyRequest) => string) {
  return async function authenticate(req: FastifyRequest): Promise<void> {
    const token = bearerToken(req.headers.authorization);
    if (token === null) throw errors.apiKeyRequired();
    const source = addressBucket(clientIp(req));
    const key = token === undefined ? undefined : store.apiKeys.authenticate(token);
    const account = key && store.accounts.get(key.accountId);
    const wait = throttle.retryAfter(source);
    if (key && account && (wait === 0 || throttle.knows(source, key.id))) {
      throttle.recordSuccess(source, key.id);
      req.account = account;
      req.apiKeyId = key.id;
      return;
    }
    if (wait > 0) throw errors.authFailuresThrottled(wait);
    throttle.recordFailure(source);
    throw errors.apiKeyInvalid();
  };
}
