// One log line per request, written once the response is sent: method, route (the pattern, never the URL as
// sent), status, duration and request id. Fastify's own two lines per request ("incoming request", "request
// completed") with the whole request serialized, redacted and written synchronously were most of what a simple
// request cost. LOG_LEVEL=debug adds the URL as sent (query values that look sensitive redacted) and the client's
// address to the same line.
import type { FastifyInstance } from 'fastify';
import pino, { type Logger } from 'pino';
import { redactUrl } from '../log-redaction.js';

export function installRequestLog(http: FastifyInstance, logger: Logger): void {
  // The line's fields are fixed and hold no secret, so it skips the logger's redaction (a copy of every object
  // logged, half the line's cost): a logger of its own on the same destination, at the same level.
  const log = pino({ level: logger.level }, (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym]);
  http.addHook('onResponse', (req, reply, done) => {
    const line = {
      reqId: req.id, method: req.method, route: req.routeOptions.url ?? null, status: reply.statusCode,
      ms: Math.round(reply.elapsedTime * 10) / 10,
    };
    if (log.isLevelEnabled('debug')) log.debug({ ...line, url: redactUrl(req.url), remoteAddress: req.ip }, 'request');
    else log.info(line, 'request');
    done();
  });
}
