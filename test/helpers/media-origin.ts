// A customer's media host on 127.0.0.1: serves scripted audio responses and counts every request it sees, so
// tests can prove who fetched what (and that refused URLs were fetched by nobody).
import { createServer, type IncomingHttpHeaders } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Mp3Encoder } from '@breezystack/lamejs';
import { encodeWav } from '../../src/media/wav.js';

export interface MediaReply { status?: number; headers?: Record<string, string>; body?: Buffer | string; hang?: boolean }

export interface SeenRequest { path: string; headers: IncomingHttpHeaders; remotePort: number }

export interface MediaOrigin {
  /** http://127.0.0.1:<port> */
  origin: string;
  port: number;
  seen: SeenRequest[];
  on(path: string, reply: MediaReply | ((req: SeenRequest) => MediaReply)): void;
  close(): Promise<void>;
}

/** One second of a 440 Hz tone at 8 kHz: a real WAV file any player (and FreeSWITCH) accepts. */
export function toneWav(seconds = 1, hz = 440, amplitude = 0.5): Buffer {
  const samples = new Float32Array(8000 * seconds).map((_, i) => amplitude * Math.sin((2 * Math.PI * hz * i) / 8000));
  return encodeWav({ sampleRate: 8000, channels: [samples] });
}

/** The same tone as an MP3 (8 kHz mono, 32 kbit/s). */
export function toneMp3(seconds = 1, hz = 440, amplitude = 0.5): Buffer {
  const pcm = Int16Array.from({ length: 8000 * seconds }, (_, i) => Math.round(32767 * amplitude * Math.sin((2 * Math.PI * hz * i) / 8000)));
  const encoder = new Mp3Encoder(1, 8000, 32);
  return Buffer.concat([encoder.encodeBuffer(pcm), encoder.flush()].map((a) => Buffer.from(a.buffer, a.byteOffset, a.byteLength)));
}

export async function startMediaOrigin(t: { teardown(fn: () => unknown): void }): Promise<MediaOrigin> {
  const routes = new Map<string, MediaReply | ((req: SeenRequest) => MediaReply)>();
  const seen: SeenRequest[] = [];
  const server = createServer((req, res) => {
    const request = { path: new URL(req.url ?? '/', 'http://x').pathname, headers: req.headers, remotePort: req.socket.remotePort ?? 0 };
    seen.push(request);
    const route = routes.get(request.path) ?? { status: 404, body: 'not found' };
    const reply = typeof route === 'function' ? route(request) : route;
    if (reply.hang) return;
    res.writeHead(reply.status ?? 200, reply.headers ?? { 'content-type': 'audio/wav' });
    res.end(reply.body ?? '');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  const close = async () => {
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(close);
  return { origin: `http://127.0.0.1:${port}`, port, seen, on: (path, reply) => routes.set(path, reply), close };
}
