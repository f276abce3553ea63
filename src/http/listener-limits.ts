// Slow clients: how long the HTTP listener waits for headers, a whole request and the next keep-alive request,
// how long a connection may sit silent, and how large headers may be. Past a limit the client gets an HTTP
// answer (408, 431, 400) and the connection closes, rather than being held open or reset.
import { createServer as createHttpServer, type RequestListener } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { Socket } from 'node:net';
import type { FastifyServerOptions } from 'fastify';
import type { Config } from '../config.js';
import { errors } from './errors.js';
import { answerAndClose, rawResponse } from './socket-answer.js';
import { capConnectionsPerAddress } from './connection-cap.js';

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

/**
 * Fastify options that make it serve from a server built here: `https` is the TLS material when serving HTTPS,
 * `exempt` the addresses the per-address cap leaves alone. Built here rather than by Fastify so that every
 * server gets the cap (Fastify would add an uncapped one per extra address a host name such as localhost
 * resolves to; with a factory it binds the first address only).
 */
export function listenerOptions(
  limits: Limits, https: { cert: Buffer | string; key: Buffer | string } | null, exempt: (ip: string) => boolean,
): FastifyServerOptions {
  // Passed at creation: node reads connectionsCheckingInterval only from the constructor options.
  const node = {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: DEADLINE_CHECK_MS,
    maxHeaderSize: MAX_HEADER_BYTES,
  };
  const serverFactory = (handler: RequestListener) => {
    // A stalled TLS handshake is a stalled header too.
    const server = https ? createHttpsServer({ ...https, ...node, handshakeTimeout: limits.headersTimeoutMs }, handler) : createHttpServer(node, handler);
    server.setTimeout(limits.idleTimeoutMs);
    capConnectionsPerAddress(server, { cap: limits.maxConnectionsPerIp, exempt, tls: https !== null });
    return server;
  };
  // `https` stays set so Fastify names its addresses https://.
  return { ...(https ? { https } : {}), serverFactory, clientErrorHandler: clientErrorAnswer(limits) } as FastifyServerOptions;
}
