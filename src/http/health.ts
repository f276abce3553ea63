import type { FastifyInstance } from 'fastify';
import type { EnginePort } from '../engine/port.js';
import type { Store } from '../repositories.js';
import type { NodeDrain } from './cluster/drain.js';

export function installHealth(app: FastifyInstance, store: Store, engine: EnginePort, drain: Pick<NodeDrain, 'active'>): void {
  // A person who opens the server's address lands on the dashboard rather than a JSON 404.
  app.get('/', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/dashboard', 302));
  // Browsers ask for /favicon.ico on their own, whatever the page links.
  app.get('/favicon.ico', { schema: { hide: true } }, async (_req, reply) => reply.redirect('/dashboard/assets/favicon.svg', 301));

  app.get('/healthz', { schema: { hide: true } }, async (_req, reply) => {
    let database = 'ok';
    try {
      await store.sql.one('SELECT 1');
    } catch {
      database = 'unavailable';
    }
    const eng = engine.health();
    const ok = database === 'ok' && eng.ok && !drain.active;
    const status = drain.active ? 'draining' : ok ? 'ok' : 'degraded';
    // `node`: which control plane answered, when several share one database behind one address (docs/cluster.md).
    // A draining node answers 503 so a load balancer sends it no new work.
    return reply.status(ok ? 200 : 503).send({ status, node: store.instanceId, database, engine: { kind: engine.kind, ...eng } });
  });
}
