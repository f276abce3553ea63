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

/** What a presented token is: none given, one of the candidates, or wrong; and the seconds to wait (0: none). */
export interface TokenJudgement { match: 'none' | 'ok' | 'wrong'; waitSeconds: number }

/**
 * Judges `given` (from a bearer header or a form) against `tokens`. A wrong one counts against the client's address;
 * past the failure limit every token the address has not used successfully lately must wait.
 */
export async function judgeOperatorToken(given: string | null, clientIp: string, tokens: ReadonlyArray<string | null>, throttle: AuthFailureLimit): Promise<TokenJudgement> {
  if (given === null) return { match: 'none', waitSeconds: 0 };
  const source = addressBucket(clientIp);
  // Every candidate is compared, so the time taken does not say which (if any) matched.
  let matched = -1;
  tokens.forEach((token, i) => { if (token !== null && constantTimeEqual(given, token) && matched === -1) matched = i; });
  const id = TOKEN_IDS[matched];
  const waitSeconds = id !== undefined ? await throttle.admit(source, id) : await throttle.fail(source);
  return { match: id !== undefined ? 'ok' : 'wrong', waitSeconds };
}

/**
 * 'none' when the request carries no bearer token, 'ok' when it carries one of `tokens`, 'wrong' (counted as a failure)
 * otherwise; 429 once the address is over the failure limit, for any token it has not used successfully lately.
 */
export async function checkOperatorToken(req: FastifyRequest, tokens: ReadonlyArray<string | null>, deps: TokenCheckDeps): Promise<'none' | 'ok' | 'wrong'> {
  // A malformed Authorization header counts as a wrong token.
  const given = bearerToken(req.headers.authorization);
  const { match, waitSeconds } = await judgeOperatorToken(given === undefined ? '' : given, deps.clientIp(req), tokens, deps.throttle);
  if (waitSeconds > 0) throw errors.authFailuresThrottled(waitSeconds);
  return match;
}
