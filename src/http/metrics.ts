import type { FastifyInstance } from 'fastify';
import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';
import { checkOperatorToken, type TokenCheckDeps } from './operator-auth.js';

/** The two registries: `open` holds what anyone may read (process, HTTP, platform-wide totals); `perAccount` names accounts' resources. */
export interface MetricsRegistries { open: Registry; perAccount: Registry }

/** Prometheus metrics on registries owned by this app instance (no process-global state). */
export function installMetrics(app: FastifyInstance): MetricsRegistries {
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
  app.addHook('onResponse', (req, reply, done) => {
    const route = req.routeOptions.url ?? 'unmatched';
    requests.inc({ method: req.method, route, status: String(reply.statusCode) });
    latency.observe({ method: req.method, route }, reply.elapsedTime / 1000);
    done();
  });
  return { open: registry, perAccount: new Registry() };
}

/**
 * GET /metrics: the open registry only (nothing names an account's queues or agents); with the operator token or
 * the metrics token, the per-account series too. Any other bearer token reads the open registry and counts as a
 * failed attempt in the auth throttle (429 past its limit), so the tokens cannot be guessed at speed.
 */
export function metricsRoute(app: FastifyInstance, registries: MetricsRegistries, deps: TokenCheckDeps & { operatorToken: string; metricsToken: string | null }): void {
  app.get('/metrics', { schema: { hide: true } }, async (req, reply) => {
    const full = await checkOperatorToken(req, [deps.operatorToken, deps.metricsToken], deps) === 'ok';
    const registry = full ? Registry.merge([registries.open, registries.perAccount]) : registries.open;
    void reply.header('content-type', registry.contentType).header('cache-control', 'no-store');
    return registry.metrics();
  });
}
