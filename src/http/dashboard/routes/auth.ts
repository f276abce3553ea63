import type { FastifyInstance } from 'fastify';
import type { Dashboard } from '../context.js';
import { formOf, queryOf, sendPage } from '../context.js';
import { tooManyFailures } from '../format.js';
import { FormRender } from '../forms.js';
import { endSession, ensurePreSessionToken, safeNext, startSession } from '../session.js';
import { loginView, setPasswordView } from '../views/auth.js';
import { UserError, type SignInResult } from '../../../users/service.js';
import { addressBucket } from '../../../net/address-bucket.js';
import { TrustedProxies } from '../../preview/client-address.js';

const INCORRECT = 'The email or password is incorrect.';

/**
 * The page's message for a refused sign-in. It depends only on the result, which depends only on the email as
 * typed and the address, never on whether a user has that email.
 */
function refusal(result: Exclude<SignInResult, { ok: true }>): { status: number; problem: string } {
  const wait = tooManyFailures(result.waitSeconds);
  if (result.reason === 'wait') return { status: 429, problem: wait };
  return { status: 401, problem: result.waitSeconds > 0 ? `${INCORRECT} ${wait}` : INCORRECT };
}

/** Sign-in, sign-out and the one-time set-password link: the routes reachable without a session. */
export function authRoutes(app: FastifyInstance, d: Dashboard): void {
  const proxies = new TrustedProxies(d.config.trustedProxies);

  app.get('/login', async (req, reply) => {
    const q = queryOf(req);
    if (req.viewer) return reply.redirect(safeNext(q.next), 303);
    const csrf = ensurePreSessionToken(req, reply);
    return sendPage(reply, loginView({ csrf, form: new FormRender({}), next: q.next, notice: q.done }));
  });

  app.post('/login', async (req, reply) => {
    const form = formOf(req);
    const result = await d.users.signIn(form.email ?? '', form.password ?? '', addressBucket(proxies.clientIp(req)));
    if (result.ok) {
      startSession(req, reply, result.session);
      return reply.redirect(safeNext(form.next), 303);
    }
    const { status, problem } = refusal(result);
    if (result.reason === 'wait') void reply.header('retry-after', String(result.waitSeconds));
    const csrf = ensurePreSessionToken(req, reply);
    return sendPage(reply, loginView({ csrf, form: new FormRender({ email: form.email ?? '' }), problem, next: form.next }), status);
  });

  app.post('/logout', async (req, reply) => {
    await endSession(req, reply, d.users);
    return reply.redirect('/dashboard/login?done=signed-out', 303);
  });

  app.get('/set-password', async (req, reply) => {
    const token = queryOf(req).token ?? '';
    const csrf = ensurePreSessionToken(req, reply);
    const expired = !(await d.users.setPasswordTokenLive(token));
    return sendPage(reply, setPasswordView({ csrf, token, form: new FormRender({}), expired }), expired ? 410 : 200);
  });

  app.post('/set-password', async (req, reply) => {
    const form = formOf(req);
    const token = form.token ?? '';
    const csrf = ensurePreSessionToken(req, reply);
    const again = (errors: Record<string, string[]>) =>
      sendPage(reply, setPasswordView({ csrf, token, form: new FormRender({}, errors) }), 422);
    if ((form.password ?? '') !== (form.confirm ?? '')) return again({ confirm: ['The two passwords do not match.'] });
    try {
      await d.users.setPasswordWithToken(token, form.password ?? '');
    } catch (err) {
      if (!(err instanceof UserError)) throw err;
      if (err.field === 'token') return sendPage(reply, setPasswordView({ csrf, token, form: new FormRender({}), expired: true }), 410);
      return again({ [err.field]: [err.message] });
    }
    return reply.redirect('/dashboard/login?done=password-set', 303);
  });
}
