// Answers on a raw socket that no request handler owns (a refused connection, an unparseable or too-slow
// request), in the live API's shape since no route has been matched.
import { STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { ApiError } from './errors.js';
import { liveBody } from './error-handler.js';

/** How long a closing socket waits for the peer to finish sending before it is dropped. */
const LINGER_MS = 1_000;

export function rawResponse(e: ApiError): string {
  const body = JSON.stringify(liveBody(e));
  return `HTTP/1.1 ${e.status} ${STATUS_CODES[e.status]}\r\nContent-Type: application/json; charset=utf-8\r\n`
    + `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
}

/**
 * Sends `response` (if any), then FIN. Closing at once while the client is still sending would make the
 * kernel answer with a reset, and a reset can wipe the response before the client reads it; so input is
 * drained and the socket dropped when the peer finishes or after LINGER_MS, whichever comes first.
 */
export function answerAndClose(socket: Socket, response: string | null): void {
  socket.on('error', () => { /* the peer went away first: nothing left to tell it */ });
  if (response === null) socket.end();
  else socket.end(response);
  socket.resume();
  const timer = setTimeout(() => socket.destroy(), LINGER_MS).unref();
  socket.once('end', () => socket.destroy());
  socket.once('close', () => clearTimeout(timer));
}
