import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics on a registry owned by this app instance (no process-global state). */
export function installMetrics(app: FastifyInstance): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new Counter({
    name: 'ringbase_http_requests_total', help: 'HTTP requests by route and status',
    labelNames: ['method', 'route', 'status'], registers: [registry],
  });
  const latency = new Histogram({
    name: 'ringbase_http_request_duration_seconds', help: 'HTTP request latency by route',
    labelNames: ['method', 'route'], buckets: [0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5], registers: [registry],
  });
  app.addHook('onResponse', async (req, reply) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
  });
  app.get('/metrics', { schema: { hide: true } }, async (_req, reply) => {
    void reply.header('content-type', registry.contentType);
    return registry.metrics();
  });
  return registry;
}
