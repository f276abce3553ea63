// At most N simultaneous connections per client address, so one address cannot hold every socket of the
// listener: the timeouts (listener-limits.ts) cut each slow connection, but only after seconds.
import type { Server, Socket } from 'node:net';
import { errors } from './errors.js';
import { answerAndClose, rawResponse } from './socket-answer.js';

export interface ConnectionCapOptions {
  cap: number;
  /** Addresses never capped: trusted proxies carry many clients on their connections. */
  exempt(ip: string): boolean;
  /** Over TLS there is no way to answer before the handshake: a refused connection is only closed. */
  tls: boolean;
}

/**
 * Node's own 'connection' listeners (the HTTP parser's setup, or the TLS handshake) are taken off the server
 * and called only for admitted sockets, so a refused socket never reaches a request handler and can be
 * answered and drained without a parser racing on it. Call right after the server is created.
 */
export function capConnectionsPerAddress(server: Server, opts: ConnectionCapOptions): void {
  const admit = server.listeners('connection') as Array<(socket: Socket) => void>;
  server.removeAllListeners('connection');
  const refusal = opts.tls ? null : rawResponse(errors.tooManyConnections(opts.cap));
  const open = new Map<string, number>();
  server.on('connection', (socket: Socket) => {
    const ip = socket.remoteAddress;
    if (ip !== undefined && !opts.exempt(ip)) {
      const count = open.get(ip) ?? 0;
      if (count >= opts.cap) return answerAndClose(socket, refusal);
      open.set(ip, count + 1);
      socket.once('close', () => {
        const left = (open.get(ip) ?? 1) - 1;
        if (left > 0) open.set(ip, left);
        else open.delete(ip);
      });
    }
    for (const listener of admit) listener.call(server, socket);
  });
}
