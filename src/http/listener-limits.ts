// Slow clients: how long the HTTP listener waits for headers, a whole request and the next keep-alive request,
// how long a connection may sit silent, and how large headers may be. Past a limit the client gets an HTTP
// answer (408, 431, 400) and the connection closes, rather than being held open or reset.
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';
import { errors } from './errors.js';
import { answerAndClose, rawResponse } from './socket-answer.js';

/** Node's default, stated here so it does not change with a `--max-http-header-size` flag. */
export const MAX_HEADER_BYTES = 16 * 1024;
/** Node checks header and request deadlines on a timer (30 s by default); each cut comes this late at most. */
const DEADLINE_CHECK_MS = 1_000;

type Limits = Config['http'];

function clientErrorAnswer(limits: Limits) {
  const timeout = rawResponse(errors.requestTimeout(limits.headersTimeoutMs / 1000, limits.requestTimeoutMs / 1000));
  const tooLarge = rawResponse(errors.headersTooLarge(MAX_HEADER_BYTES));
  const malformed = rawResponse(errors.malformedRequest());
  return (err: Error & { code?: string }, socket: Socket): void => {
    // Node reports the same socket again while it lingers (each check, each chunk): answer once.
    if (err.code === 'ECONNRESET' || socket.destroyed || !socket.writable) return;
    // A response already under way cannot be followed by another one on the same connection.
    const inFlight = (socket as Socket & { _httpMessage?: { headersSent?: boolean } })._httpMessage?.headersSent === true;
    const answer = err.code === 'ERR_HTTP_REQUEST_TIMEOUT' ? timeout : err.code === 'HPE_HEADER_OVERFLOW' ? tooLarge : malformed;
    answerAndClose(socket, inFlight ? null : answer);
  };
}

/** Fastify and node server options for the listener; `https` is the TLS material when serving HTTPS. */
export function listenerOptions(limits: Limits, https: { cert: Buffer | string; key: Buffer | string } | null): FastifyServerOptions {
  // Passed at creation: node reads connectionsCheckingInterval only from the constructor options.
  const node = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    connectionsCheckingInterval: DEADLINE_CHECK_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
  return {
    // A stalled TLS handshake is a stalled header too.
    ...(https ? { https: { ...https, ...node, handshakeTimeout: limits.headersTimeoutMs } } : { http: node }),
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionTimeout: limits.idleTimeoutMs,
    clientErrorHandler: clientErrorAnswer(limits),
  } as FastifyServerOptions;
}
