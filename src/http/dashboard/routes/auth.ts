import type { FastifyInstance } from 'fastify';
import type { Dashboard } from '../context.js';
import { formOf, queryOf, sendPage } from '../context.js';
import { FormRender } from '../forms.js';
import { endSession, ensurePreSessionToken, safeNext, startSession } from '../session.js';
import { loginView, setPasswordView } from '../views/auth.js';
import { UserError } from '../../../users/service.js';
import { when } from '../format.js';

/** Sign-in, sign-out and the one-time set-password link: the routes reachable without a session. */
export function authRoutes(app: FastifyInstance, d: Dashboard): void {
  app.get('/', async (req, reply) => reply.redirect(req.viewer ? '/dashboard/numbers' : '/dashboard/login', 303));

  app.get('/login', async (req, reply) => {
    const q = queryOf(req);
    if (req.viewer) return reply.redirect(safeNext(q.next), 303);
    const csrf = ensurePreSessionToken(req, reply);
    return sendPage(reply, loginView({ csrf, form: new FormRender({}), next: q.next, notice: q.done }));
  });

  app.post('/login', async (req, reply) => {
    const form = formOf(req);
    const result = await d.users.signIn(form.email ?? '', form.password ?? '');
    if (result.ok) {
      startSession(req, reply, result.session);
      return reply.redirect(safeNext(form.next), 303);
    }
    const problem = result.reason === 'locked'
      ? `Too many failed attempts. Sign-in for this email is locked until ${when(result.lockedUntil)}.`
      : 'The email or password is incorrect.';
    const csrf = ensurePreSessionToken(req, reply);
    return sendPage(reply, loginView({ csrf, form: new FormRender({ email: form.email ?? '' }), problem, next: form.next }), 401);
  });

  app.post('/logout', async (req, reply) => {
    endSession(req, reply, d.users);
    return reply.redirect('/dashboard/login?done=signed-out', 303);
  });

  app.get('/set-password', async (req, reply) => {
    const token = queryOf(req).token ?? '';
    const csrf = ensurePreSessionToken(req, reply);
    const expired = !d.users.setPasswordTokenLive(token);
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
