import type { FastifyInstance } from 'fastify';
import { Type, type Static } from '@sinclair/typebox';
import { checkOperatorToken, type TokenCheckDeps } from '../operator-auth.js';
import { ApiError } from '../errors.js';
import type { SandboxEngine } from '../../engine/sandbox/index.js';
import type { CallWatch } from '../../calls/watch.js';
import type { EnginePort } from '../../engine/port.js';
import { mediaServerRoutes } from './media-servers.js';
import { carrierLinkRoutes } from './carrier-links.js';
import { clusterRoutes, type ClusterRouteDeps } from './cluster.js';
import { SAID_MAX, simulateInbound } from '../../calls/simulator.js';

const Body = Type.Object({
  from: Type.String({ pattern: '^\\+[1-9]\\d{1,14}$' }),
  to: Type.String({ pattern: '^\\+[1-9]\\d{1,14}$' }),
  digits: Type.Optional(Type.Array(Type.String({ pattern: '^[0-9*#]{0,32}$' }), { maxItems: 20 })),
  say: Type.Optional(Type.Array(Type.String({ maxLength: SAID_MAX, format: 'text' }), { maxItems: 20 })),
  max_seconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 900 })),
});

const invalidToken = () => new ApiError(401, 'operator_token_invalid', 'Operator routes need the token from <data dir>/operator.token.');

/**
 * Operator-only routes, authenticated with the token in the data dir (see src/operator-token.ts); wrong tokens are
 * throttled per address like API keys.
 */
export async function operatorRoutes(
  app: FastifyInstance, deps: TokenCheckDeps & { token: string; simulator: SandboxEngine; watch: CallWatch; engine: EnginePort; cluster: ClusterRouteDeps },
): Promise<void> {
  app.addHook('onRequest', async (req) => {
    if (await checkOperatorToken(req, [deps.token], deps) !== 'ok') throw invalidToken();
  });

  mediaServerRoutes(app, deps.engine);
  carrierLinkRoutes(app, deps.engine);
  clusterRoutes(app, deps.cluster);

  app.post<{ Body: Static<typeof Body> }>('/operator/simulate/inbound', { schema: { hide: true, body: Body } }, async (req, reply) => {
    reply.hijack();
    reply.raw.writeHead(200, { 'content-type': 'application/x-ndjson', 'cache-control': 'no-store' });
    const line = (o: unknown) => reply.raw.write(JSON.stringify(o) + '\n');
    const { callSid } = await simulateInbound(deps.simulator, deps.watch, {
      from: req.body.from, to: req.body.to, digits: req.body.digits ?? [], speech: req.body.say ?? [], maxSeconds: req.body.max_seconds ?? 120,
    }, line);
    line({ source: 'simulator', type: 'done', call_sid: callSid });
    reply.raw.end();
  });
}
