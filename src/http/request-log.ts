// One log line per request, written once the response is sent: method, route (the pattern, never the URL as
// sent), status, duration and request id. Fastify's own two lines per request ("incoming request", "request
// completed") with the whole request serialized, redacted and written synchronously were most of what a simple
// request cost. LOG_LEVEL=debug adds the URL as sent (query values that look sensitive redacted) and the client's
// address to the same line.
import { hostname } from 'node:os';
import pino, { type Logger } from 'pino';
import { redactUrl } from '../log-redaction.js';
import type { EndedRequestObserver } from './request-end.js';

const INFO = 30;

export function requestLog(logger: Logger): EndedRequestObserver {
  const destination = (logger as unknown as Record<symbol, pino.DestinationStream>)[pino.symbols.streamSym]!;
  // The line's fields are fixed and hold no secret, so it skips the logger's redaction (a copy of every object
  // logged): a logger of its own on the same destination, at the same level.
  const log = pino({ level: logger.level }, destination);
  // At info the line is written as pino writes it (same fields, same order) from a template: pino's generic
  // object serialization was a tenth of a simple API request's cost.
  const base = `,"pid":${process.pid},"hostname":${JSON.stringify(hostname())}`;
  // A turn's lines reach the destination as one write: sonic-boom measures its whole pending buffer on each write,
  // so writing line by line cost more per line the busier the server was.
  const pending: string[] = [];
  const writePending = () => {
    destination.write(pending.join(''));
    pending.length = 0;
  };
  return ({ method, route, status, elapsedMs }, req) => {
    const ms = Math.round(elapsedMs * 10) / 10;
    if (log.isLevelEnabled('debug')) {
      log.debug({ reqId: req.id, method, route, status, ms, url: redactUrl(req.url), remoteAddress: req.ip }, 'request');
    } else if (log.isLevelEnabled('info')) {
      const line = `{"level":${INFO},"time":${Date.now()}${base},"reqId":${JSON.stringify(req.id)},"method":${JSON.stringify(method)},`
        + `"route":${JSON.stringify(route)},"status":${status},"ms":${ms},"msg":"request"}\n`;
      if (pending.push(line) === 1) setImmediate(writePending);
    }
  };
}
