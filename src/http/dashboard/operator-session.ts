// The dashboard's operator session: signed in with the operator token (the one the /operator routes take), held in
// a cookie of its own that only the operator pages receive. Nothing is stored: the cookie carries its expiry and a
// random nonce, signed with the operator token as the key, so replacing the token (the data dir's operator.token)
// ends every operator session at once, on every node that shares it. Its forms' CSRF token is derived the same way.
import { createHmac } from 'node:crypto';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual, randomToken } from '../../crypto/tokens.js';

export const OPERATOR_COOKIE = 'rb_operator';
/** Shorter than an account user's session: this one can drain nodes. */
export const OPERATOR_SESSION_TTL_MS = 8 * 3_600_000;

export interface OperatorSession { expiresAt: number; csrf: string }

const mac = (token: string, what: string) => createHmac('sha256', token).update(what).digest('base64url');

function cookieOpts(req: FastifyRequest, maxAgeSeconds?: number) {
  return {
    path: '/dashboard/operator', httpOnly: true, sameSite: 'strict' as const, secure: req.protocol === 'https',
    ...(maxAgeSeconds ? { maxAge: maxAgeSeconds } : {}),
  };
}

/** The session the request's cookie holds, if it is signed with `token` and not expired; else null. */
export function operatorSessionOf(req: FastifyRequest, token: string, nowMs: number): OperatorSession | null {
  const parts = (req.cookies[OPERATOR_COOKIE] ?? '').split('.');
  const [expires, nonce, signature] = parts;
  if (parts.length !== 3 || !/^\d{1,15}$/.test(expires!) || !nonce || !signature) return null;
  if (!constantTimeEqual(signature, mac(token, `session ${expires} ${nonce}`))) return null;
  const expiresAt = Number(expires);
  return expiresAt > nowMs ? { expiresAt, csrf: mac(token, `csrf ${nonce}`) } : null;
}

export function startOperatorSession(req: FastifyRequest, reply: FastifyReply, token: string, nowMs: number): void {
  const expires = String(nowMs + OPERATOR_SESSION_TTL_MS);
  const nonce = randomToken(18);
  void reply.setCookie(OPERATOR_COOKIE, `${expires}.${nonce}.${mac(token, `session ${expires} ${nonce}`)}`, cookieOpts(req, OPERATOR_SESSION_TTL_MS / 1000));
}

export function endOperatorSession(req: FastifyRequest, reply: FastifyReply): void {
  void reply.clearCookie(OPERATOR_COOKIE, cookieOpts(req));
}
