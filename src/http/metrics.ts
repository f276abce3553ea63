import type { FastifyInstance } from 'fastify';
import { Registry, collectDefaultMetrics } from 'prom-client';
import { HttpRequestFigures } from './request-figures.js';
import { checkOperatorToken, type TokenCheckDeps } from './operator-auth.js';

/** The two registries: `open` holds what anyone may read (process, HTTP, platform-wide totals); `perAccount` names accounts' resources. */
export interface MetricsRegistries { open: Registry; perAccount: Registry }

/**
 * Prometheus metrics on registries owned by this app instance (no process-global state); `requests` counts the
 * HTTP series into the open registry as requests end.
 */
export function createMetrics(): MetricsRegistries & { requests: HttpRequestFigures } {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const requests = new HttpRequestFigures();
  requests.register(registry);
  return { open: registry, perAccount: new Registry(), requests };
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
