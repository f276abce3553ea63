import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { Dashboard } from '../context.js';
import { formOf, queryOf, sendPage } from '../context.js';
import { tooManyFailures } from '../format.js';
import { ensurePreSessionToken } from '../session.js';
import { endOperatorSession, operatorSessionOf, startOperatorSession } from '../operator-session.js';
import { clusterView, operatorErrorView, operatorSignInView } from '../views/operator.js';
import { operatorCarriersView } from '../views/operator-carriers.js';
import { judgeOperatorToken } from '../../operator-auth.js';
import { TrustedProxies } from '../../preview/client-address.js';
import { askToDrain, clusterStatus } from '../../../recovery/cluster-status.js';

/**
 * The operator's pages (docs/cluster.md): sign-in with the operator token, the cluster's nodes, drain one. Outside
 * the account holders' session: an operator session is its own cookie (operator-session.ts), and a wrong token
 * counts against the address in the same throttle as wrong API keys and operator tokens on the API.
 */
export function operatorPages(app: FastifyInstance, d: Dashboard): void {
  const proxies = new TrustedProxies(d.config.trustedProxies);
  const { token, throttle } = d.operator;
  const self = d.store.instanceId;
  const sessionOf = (req: FastifyRequest) => operatorSessionOf(req, token, d.clock.now());
  // An operator's forms carry the operator session's CSRF token (checked by the dashboard's preHandler).
  app.addHook('onRequest', async (req) => {
    const session = sessionOf(req);
    if (session) req.csrfToken = session.csrf;
  });

  app.get('/operator', async (req, reply) => {
    if (sessionOf(req)) return reply.redirect('/dashboard/operator/cluster', 303);
    return sendPage(reply, operatorSignInView({ csrf: ensurePreSessionToken(req, reply), notice: queryOf(req).done }));
  });

  app.post('/operator/sign-in', async (req, reply) => {
    const { match, waitSeconds } = await judgeOperatorToken(formOf(req).token ?? '', proxies.clientIp(req), [token], throttle);
    if (match === 'ok' && waitSeconds === 0) {
      startOperatorSession(req, reply, token, d.clock.now());
      return reply.redirect('/dashboard/operator/cluster', 303);
    }
    const csrf = ensurePreSessionToken(req, reply);
    if (waitSeconds > 0) {
      void reply.header('retry-after', String(waitSeconds));
      return sendPage(reply, operatorSignInView({ csrf, problem: tooManyFailures(waitSeconds) }), 429);
    }
    return sendPage(reply, operatorSignInView({ csrf, problem: 'The operator token is incorrect.' }), 401);
  });

  app.post('/operator/sign-out', async (req, reply) => {
    endOperatorSession(req, reply);
    return reply.redirect('/dashboard/operator?done=operator-signed-out', 303);
  });

  app.get('/operator/cluster', async (req, reply) => {
    const session = sessionOf(req);
    if (!session) return reply.redirect('/dashboard/operator', 303);
    const nodes = await clusterStatus(d.store, d.clock, self);
    return sendPage(reply, clusterView({ csrf: session.csrf, self, nodes, notice: queryOf(req).done }));
  });

  app.get('/operator/carriers', async (req, reply) => {
    const session = sessionOf(req);
    if (!session) return reply.redirect('/dashboard/operator', 303);
    const engine = d.callServices.engine;
    return sendPage(reply, operatorCarriersView({ csrf: session.csrf, carriers: await d.store.carriers.list(), links: engine.carrierLinks?.() ?? null }));
  });

  app.post<{ Params: { id: string } }>('/operator/cluster/nodes/:id/drain', async (req, reply) => {
    if (!sessionOf(req)) return reply.redirect('/dashboard/operator', 303);
    const { id } = req.params;
    const asked = await askToDrain(d.store.instances, d.clock, id);
    if (asked === 'not_found') return sendPage(reply, operatorErrorView(404, `No node named ${id} is on this database.`), 404);
    if (asked === 'dead') return sendPage(reply, operatorErrorView(409, `Node ${id} is dead: the other nodes finish its calls, so there is nothing to drain.`), 409);
    return reply.redirect('/dashboard/operator/cluster?done=node-draining', 303);
  });
}
