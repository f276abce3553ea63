// Opening the WebSocket to a stream peer: only to vetted addresses (src/net/stream-url.ts), no redirects, no
// compression (audio does not compress and inflating is a memory risk), a bounded message size and handshake.
import WebSocket from 'ws';
import { TargetRefusedError } from '../net/errors.js';
import { guardedSocket, type GuardedSocketOptions } from '../net/stream-url.js';
import { MAX_PEER_MESSAGE_BYTES } from './protocol.js';

export const HANDSHAKE_TIMEOUT_MS = 5_000;

export type PeerOpen = { ok: true; ws: WebSocket } | { ok: false; reason: string };

export function openPeer(url: URL, opts: GuardedSocketOptions & { handshakeTimeoutMs?: number; headers?: Record<string, string> }): Promise<PeerOpen> {
  const guard = guardedSocket(url, opts);
  if ('refused' in guard) return Promise.resolve({ ok: false, reason: `refused: ${guard.refused.message}` });
  return new Promise((resolve) => {
    const ws = new WebSocket(url, {
      lookup: guard.lookup, handshakeTimeout: opts.handshakeTimeoutMs ?? HANDSHAKE_TIMEOUT_MS, followRedirects: false,
      perMessageDeflate: false, maxPayload: MAX_PEER_MESSAGE_BYTES, headers: { 'user-agent': 'Ringbase/0.1', ...opts.headers },
    });
    const fail = (reason: string) => {
      ws.removeAllListeners();
      // Errors after a failed handshake (socket resets) have nobody to tell.
      ws.on('error', () => undefined);
      ws.terminate();
      resolve({ ok: false, reason });
    };
    ws.once('open', () => { ws.removeAllListeners(); resolve({ ok: true, ws }); });
    ws.once('unexpected-response', (_req, res) => fail(`the peer answered HTTP ${res.statusCode ?? '?'} instead of a WebSocket upgrade`));
    ws.once('error', (err) => fail(describe(err)));
  });
}

/** The reason a connection failed, in words an operator can act on (the policy, TLS, the network). */
function describe(err: Error & { code?: string }): string {
  if (err instanceof TargetRefusedError) return `refused: ${err.reason}`;
  if (err.code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO/.test(err.code)) return `TLS failure: ${err.message}`;
  return `unreachable: ${err.message}`;
}
