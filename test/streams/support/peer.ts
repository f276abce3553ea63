// A media stream peer on 127.0.0.1 for tests: a real WebSocket server that records every message of every
// connection and lets a test script how each connection behaves.
import type { IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';

export interface PeerConnection {
  ws: WebSocket;
  /** The upgrade request: its URL and headers. */
  request: { url: string; headers: IncomingHttpHeaders };
  messages: any[];
  /** Resolves with the first message (from now or earlier) that matches. */
  waitFor(match: (msg: any) => boolean): Promise<any>;
  closed: Promise<{ code: number; reason: string }>;
}

export interface TestPeer {
  url: string;
  port: number;
  connections: PeerConnection[];
  nextConnection(): Promise<PeerConnection>;
}

export async function startPeer(t: { teardown(fn: () => unknown): void }, onConnection?: (c: PeerConnection) => void): Promise<TestPeer> {
  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  const connections: PeerConnection[] = [];
  const waiting: Array<(c: PeerConnection) => void> = [];
  wss.on('connection', (ws, req) => {
    const messages: any[] = [];
    const waiters: Array<{ match: (m: any) => boolean; resolve: (m: any) => void }> = [];
    const c: PeerConnection = {
      ws, messages, request: { url: req.url ?? '', headers: req.headers },
      waitFor(match) {
        const found = messages.find(match);
        return found ? Promise.resolve(found) : new Promise((resolve) => waiters.push({ match, resolve }));
      },
      closed: new Promise((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))),
    };
    ws.on('message', (data) => {
      let msg: any;
      try { msg = JSON.parse(data.toString()); } catch { msg = { unparsed: data.toString() }; }
      messages.push(msg);
      for (const w of [...waiters]) if (w.match(msg)) { waiters.splice(waiters.indexOf(w), 1); w.resolve(msg); }
    });
    ws.on('error', () => undefined);
    connections.push(c);
    onConnection?.(c);
    waiting.shift()?.(c);
  });
  t.teardown(() => new Promise<void>((resolve) => {
    for (const c of wss.clients) c.terminate();
    wss.close(() => resolve());
  }));
  const { port } = wss.address() as AddressInfo;
  return {
    url: `ws://127.0.0.1:${port}`, port, connections,
    nextConnection: () => new Promise((resolve) => waiting.push(resolve)),
  };
}

/** The n-th media message's decoded payload, per track. */
export function mediaOf(messages: any[], track = 'inbound'): any[] {
  return messages.filter((m) => m.event === 'media' && m.media.track === track);
}
