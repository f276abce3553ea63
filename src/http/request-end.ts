// What follows a sent response, the request's log line and its HTTP series, run from one onResponse hook that reads
// the route, status and duration once (fastify's `routeOptions` builds a new object on every read).
import type { FastifyInstance, FastifyRequest } from 'fastify';

export interface EndedRequest {
  method: string;
  /** The matched route's pattern, null when none matched. */
  route: string | null;
  status: number;
  elapsedMs: number;
}

export type EndedRequestObserver = (ended: EndedRequest, req: FastifyRequest) => void;

export function installRequestEnd(http: FastifyInstance, observers: readonly EndedRequestObserver[]): void {
  http.addHook('onResponse', (req, reply, done) => {
    const ended: EndedRequest = { method: req.method, route: req.routeOptions.url ?? null, status: reply.statusCode, elapsedMs: reply.elapsedTime };
    for (const observe of observers) observe(ended, req);
    done();
  });
}
