import type { FastifyRequest } from 'fastify';
import type { Account } from '../store/accounts.js';
import type { Store } from '../store/index.js';
import { errors } from './errors.js';

declare module 'fastify' {
  interface FastifyRequest {
    account: Account;
    apiKeyId: number;
  }
}

/** Bearer API key authentication shared by the live and preview roots. */
export function bearerAuth(store: Store) {
  return async function authenticate(req: FastifyRequest): Promise<void> {
    const header = req.headers.authorization;
    if (!header || header.trim() === '') throw errors.apiKeyRequired();
    const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
    if (!match) throw errors.apiKeyInvalid();
    const key = store.apiKeys.authenticate(match[1]!);
    const account = key && store.accounts.get(key.accountId);
    if (!key || !account) throw errors.apiKeyInvalid();
    req.account = account;
    req.apiKeyId = key.id;
  };
}
