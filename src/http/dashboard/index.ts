import type { FastifyError, FastifyInstance } from 'fastify';
import cookie from '@fastify/cookie';
import formbody from '@fastify/formbody';
import { NumberService } from '../../numbers/service.js';
import { UserService } from '../../users/service.js';
import { signInDelaysFor } from '../../users/shared-sign-in-delays.js';
import { sendPage, type Dashboard, type DashboardDeps } from './context.js';
import { csrfValid, loadViewer } from './session.js';
import { assetRoutes } from './assets.js';
import { errorView } from './views/auth.js';
import { errors } from '../errors.js';
import { authRoutes } from './routes/auth.js';
import { numberRoutes } from './routes/numbers.js';
import { keyRoutes } from './routes/keys.js';
import { trunkRoutes } from './routes/trunks.js';
import { callRoutes } from './routes/calls.js';
import { conferenceRoutes } from './routes/conferences.js';
import { acdRoutes } from './routes/acd.js';
import { settingsRoutes } from './routes/settings.js';
import { testCallRoutes } from './routes/test-call.js';
import { homeRoutes } from './routes/home.js';
import { subscriptionRoutes } from './routes/subscriptions.js';
import { operatorPages } from './routes/operator.js';

// Pages may load only this site's own styles, scripts and media, and may not be framed (clickjacking).
const CSP = "default-src 'self'; img-src 'self' data:; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/** The dashboard's error page for errors raised before its routes' own handler runs (no viewer known yet). */
export const dashboardErrorPage = (status: number, message: string): string => errorView(status, message, null).value;

/** The account holder's web UI, registered under /dashboard. Forms only: no JSON API of its own. */
export async function dashboardRoutes(app: FastifyInstance, deps: DashboardDeps): Promise<void> {
  const d: Dashboard = { ...deps, users: new UserService(deps.store.users, deps.clock, signInDelaysFor(deps.store.sql, deps.clock)), numbers: new NumberService(deps.store.numbers, { allowLocalTargets: deps.config.devAllowLocalTargets }) };
  // Pages, not API: kept out of the OpenAPI document, which is where a developer starts (/docs).
  app.addHook('onRoute', (route) => { route.schema = { ...route.schema, hide: true }; });
  await app.register(cookie);
  // Registered in this scope only: the APIs keep answering 415 to form bodies.
  await app.register(formbody, { bodyLimit: 256 * 1024 });
  app.decorateRequest('viewer', null);
  app.decorateRequest('csrfToken', '');

  app.addHook('onRequest', loadViewer(d.users, d.store));
  app.addHook('onRequest', async (_req, reply) => {
    void reply.headers({
      'cache-control': 'no-store', 'content-security-policy': CSP, 'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff', 'referrer-policy': 'same-origin',
    });
  });
  app.addHook('preHandler', async (req, reply) => {
    if (req.method === 'GET' || req.method === 'HEAD' || csrfValid(req)) return;
    return sendPage(reply, errorView(403, 'This form expired or did not come from this site. Go back, reload the page and try again.', req.viewer), 403);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    const status = err.statusCode && err.statusCode >= 400 && err.statusCode < 500 ? err.statusCode : 500;
    if (status >= 500) req.log.error({ err }, 'dashboard request failed');
    const message = status >= 500 ? 'The server could not complete this request; it has been logged.'
      : err.code === 'FST_ERR_CTP_BODY_TOO_LARGE' ? `${errors.payloadTooLarge(req.routeOptions.bodyLimit).message} Go back, shorten the form and try again.`
        : 'The request could not be read. Go back and try again.';
    return sendPage(reply, errorView(status, message, req.viewer), status);
  });
  app.setNotFoundHandler((req, reply) =>
    sendPage(reply, errorView(404, 'There is nothing at this address, or it belongs to another account.', req.viewer), 404));

  assetRoutes(app);
  authRoutes(app, d);
  await app.register(async (operator) => operatorPages(operator, d));
  await app.register(async (signedIn) => {
    signedIn.addHook('onRequest', async (req, reply) => {
      if (req.viewer) return;
      if (req.method === 'GET') return reply.redirect(`/dashboard/login?next=${encodeURIComponent(req.url)}`, 303);
      return reply.redirect('/dashboard/login', 303);
    });
    homeRoutes(signedIn, d);
    numberRoutes(signedIn, d);
    keyRoutes(signedIn, d);
    await signedIn.register(async (trunks) => trunkRoutes(trunks, d));
    callRoutes(signedIn, d);
    conferenceRoutes(signedIn, d);
    acdRoutes(signedIn, d);
    settingsRoutes(signedIn, d);
    testCallRoutes(signedIn, d);
    subscriptionRoutes(signedIn, d);
  });
}
