import type { FastifyReply, FastifyRequest } from 'fastify';
import { constantTimeEqual, randomToken } from '../../crypto/tokens.js';
import { SESSION_TTL_MS, type Session, type UserService } from '../../users/service.js';
import type { Store } from '../../repositories.js';
import { formOf } from './context.js';

export const SESSION_COOKIE = 'rb_session';
/** Double-submit token for the forms shown before sign-in (sign-in, set password). */
export const PRE_SESSION_COOKIE = 'rb_csrf';

function cookieOpts(req: FastifyRequest, maxAgeSeconds?: number) {
  // Secure whenever this request came over TLS; a plain-HTTP development server must still be usable.
  return { path: '/dashboard', httpOnly: true, sameSite: 'lax' as const, secure: req.protocol === 'https', ...(maxAgeSeconds ? { maxAge: maxAgeSeconds } : {}) };
}

/** Attaches the signed-in viewer (if any) and the CSRF token forms on this request must carry. */
export function loadViewer(users: UserService, store: Store) {
  return async function (req: FastifyRequest): Promise<void> {
    const token = req.cookies[SESSION_COOKIE];
    const session = token ? await users.session(token) : undefined;
    const account = session && await store.accounts.get(session.user.accountId);
    req.viewer = session && account ? { user: session.user, account, csrf: session.csrfToken, sessionToken: session.token } : null;
    req.csrfToken = req.viewer?.csrf ?? req.cookies[PRE_SESSION_COOKIE] ?? '';
  };
}

/** Before sign-in there is no session to hold a token: give the browser one in a cookie it must echo in the form. */
export function ensurePreSessionToken(req: FastifyRequest, reply: FastifyReply): string {
  if (req.viewer) return req.viewer.csrf;
  if (!req.csrfToken) {
    req.csrfToken = randomToken(24);
    void reply.setCookie(PRE_SESSION_COOKIE, req.csrfToken, cookieOpts(req));
  }
  return req.csrfToken;
}

export function csrfValid(req: FastifyRequest): boolean {
  const given = formOf(req)._csrf ?? '';
  return req.csrfToken !== '' && constantTimeEqual(given, req.csrfToken);
}

export function startSession(req: FastifyRequest, reply: FastifyReply, session: Session): void {
  void reply.setCookie(SESSION_COOKIE, session.token, cookieOpts(req, SESSION_TTL_MS / 1000));
  void reply.clearCookie(PRE_SESSION_COOKIE, { path: '/dashboard' });
}

export async function endSession(req: FastifyRequest, reply: FastifyReply, users: UserService): Promise<void> {
  const token = req.cookies[SESSION_COOKIE];
  if (token) await users.signOut(token);
  void reply.clearCookie(SESSION_COOKIE, cookieOpts(req));
}

/** Where to go after sign-in: only a dashboard path on this site, never an absolute or protocol-relative URL. */
export function safeNext(next: string | undefined): string {
  return next && /^\/dashboard(\/[A-Za-z0-9._~%+\-/?=&]*)?$/.test(next) && !next.startsWith('//') ? next : '/dashboard/numbers';
}
