// Per-route limits, in one table: how large a request body may be, and which routes may keep a connection
// silent for longer than the listener's idle timeout.
import type { FastifyInstance, FastifyRequest } from 'fastify';

const KIB = 1024;

/** Every route not listed below: JSON create/update bodies and dashboard forms are a few KiB at most. */
export const DEFAULT_BODY_LIMIT = 64 * KIB;

const BODY_LIMITS: Record<string, number> = {
  // Inline markup may be 64 KiB of UTF-8; JSON escaping can make it up to six times larger on the wire.
  'POST /api/calls': 512 * KIB,
  // 50 attributes of up to 1,024 characters each, any of them multi-byte.
  'POST /v1/lead-injections': 256 * KIB,
  // 20 custom headers of up to 1,024 characters and a 16 KiB payload template.
  'POST /v1/webhooks': 128 * KIB,
  'POST /v1/webhooks/:sid': 128 * KIB,
};

// Simulated calls hold their request open for the whole call (up to 300 s on the dashboard, 900 s for the
// operator CLI), silent through pauses. Both need a signed-in user or the operator token, so the idle timeout
// is lifted for these requests rather than raised for everyone.
const HELD_OPEN = new Set(['POST /dashboard/test-call', 'POST /operator/simulate/inbound']);

async function liftIdleTimeout(req: FastifyRequest): Promise<void> {
  req.raw.socket.setTimeout(0);
}

/** Registered before any route: each route gets its body limit (unless it sets one) and its idle policy. */
export function installRouteLimits(app: FastifyInstance): void {
  app.addHook('onRoute', (route) => {
    const keys = [route.method].flat().map((m) => `${m} ${route.url}`);
    route.bodyLimit ??= Math.max(...keys.map((k) => BODY_LIMITS[k] ?? DEFAULT_BODY_LIMIT));
    if (keys.some((k) => HELD_OPEN.has(k))) route.onRequest = [liftIdleTimeout, ...[route.onRequest ?? []].flat()];
  });
}
