import type { FastifyReply, FastifyRequest } from 'fastify';
import type { Account } from '../store/accounts.js';
import type { Store } from '../repositories.js';
import { addressBucket } from '../net/address-bucket.js';
import type { AuthFailureLimit } from './auth-throttle.js';
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
export function bearerToken(header: string | undefined): string | null | undefined {
  if (header === undefined || /^\s*(bearer\s*)?$/i.test(header)) return null;
  return /^Bearer\s+(\S+)\s*$/i.exec(header)?.[1];
}

export type AuthenticateHook = (req: FastifyRequest, reply: FastifyReply) => Promise<void>;

/**
 * Bearer API key authentication shared by the live and preview roots. Failed keys count against the source
 * address (`clientIp`: the TCP peer, or the client a trusted proxy names); past the limit they answer 429.
 * The key and its account usually come from the stores' read caches, and a key recently admitted from the address
 * passes the throttle, without a database round trip.
 */
export function bearerAuth(store: Store, throttle: AuthFailureLimit, clientIp: (req: FastifyRequest) => string): AuthenticateHook {
  async function accountFor(req: FastifyRequest): Promise<Account> {
    const token = bearerToken(req.headers.authorization);
    if (token === null) throw errors.apiKeyRequired();
    const source = addressBucket(clientIp(req));
    const key = token === undefined ? undefined : await store.apiKeys.authenticate(token);
    const account = key && await store.accounts.get(key.accountId);
    const wait = key && account ? await throttle.admit(source, key.id) : await throttle.fail(source);
    if (wait > 0) throw errors.authFailuresThrottled(wait);
    if (!key || !account) throw errors.apiKeyInvalid();
    req.apiKeyId = key.id;
    return account;
  }
  return async function authenticate(req) {
    req.account = await accountFor(req);
  };
}
