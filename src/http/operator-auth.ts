// The operator's own tokens on HTTP: the operator token (from the data dir) for the /operator routes, and it or the
// metrics token (RINGBASE_METRICS_TOKEN) for the per-account /metrics series. A wrong token counts against the
// client's address in the API keys' throttle (one count for keys and tokens), so neither can be guessed at speed.
import type { FastifyRequest } from 'fastify';
import { constantTimeEqual } from '../crypto/tokens.js';
import { addressBucket } from '../net/address-bucket.js';
import type { AuthFailureLimit } from './auth-throttle.js';
import { bearerToken } from './auth.js';
import { errors } from './errors.js';

/** Throttle ids of the tokens (API keys have positive ids): a token that worked from an address stays usable there. */
const TOKEN_IDS = [-1, -2];

export interface TokenCheckDeps {
  throttle: AuthFailureLimit;
  clientIp: (req: FastifyRequest) => string;
}

/**
 * 'none' when the request carries no bearer token, 'ok' when it carries one of `tokens`, 'wrong' (counted as a failure)
 * otherwise; 429 once the address is over the failure limit, for any token it has not used successfully lately.
 */
export async function checkOperatorToken(req: FastifyRequest, tokens: ReadonlyArray<string | null>, deps: TokenCheckDeps): Promise<'none' | 'ok' | 'wrong'> {
  const given = bearerToken(req.headers.authorization);
  if (given === null) return 'none';
  const source = addressBucket(deps.clientIp(req));
  // Every candidate is compared, so the time taken does not say which (if any) matched.
  let matched = -1;
  tokens.forEach((token, i) => { if (token !== null && constantTimeEqual(given ?? '', token) && matched === -1) matched = i; });
  const id = TOKEN_IDS[matched];
  const wait = id !== undefined ? await deps.throttle.admit(source, id) : await deps.throttle.fail(source);
  if (wait > 0) throw errors.authFailuresThrottled(wait);
  return id !== undefined ? 'ok' : 'wrong';
}
