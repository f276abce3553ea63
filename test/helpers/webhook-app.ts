// A customer's application on 127.0.0.1: answers each path with scripted markup and records every request.
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingMessage['headers'];
  body: string;
  json: any;
  form: URLSearchParams;
}

export type Reply =
  | { status?: number; body: string; type?: string }
  // A promise answers when it settles: a receiver that is slow for as long as the test wants.
  | ((req: ReceivedRequest) => { status?: number; body: string; type?: string } | Promise<{ status?: number; body: string; type?: string }>)
  | 'hang'; // never answer: the platform's timeout must fire

export interface WebhookApp {
  url: string;
  requests: ReceivedRequest[];
  on(path: string, reply: Reply): void;
  /** Resolves with the nth request (1-based) to a path, as soon as it arrives. */
  waitFor(path: string, count?: number): Promise<ReceivedRequest>;
  close(): Promise<void>;
}

export async function startWebhookApp(t: { teardown(fn: () => unknown): void }): Promise<WebhookApp> {
  const routes = new Map<string, Reply>();
  const requests: ReceivedRequest[] = [];
  const waiters: Array<{ path: string; count: number; resolve: (r: ReceivedRequest) => void }> = [];
  const hanging = new Set<ServerResponse>();

  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', async () => {
      const url = new URL(req.url ?? '/', 'http://x');
      const body = Buffer.concat(chunks).toString('utf8');
      let json: unknown;
      try { json = body ? JSON.parse(body) : undefined; } catch { json = undefined; }
      const received: ReceivedRequest = { method: req.method ?? 'GET', path: url.pathname, query: url.searchParams, headers: req.headers, body, json, form: new URLSearchParams(body) };
      requests.push(received);
      for (const w of [...waiters]) {
        if (w.path === received.path && requests.filter((r) => r.path === w.path).length >= w.count) {
          waiters.splice(waiters.indexOf(w), 1);
          w.resolve(received);
        }
      }
      const reply = routes.get(url.pathname) ?? { status: 404, body: 'no route' };
      if (reply === 'hang') { hanging.add(res); return; }
      const r = typeof reply === 'function' ? await reply(received) : reply;
      res.writeHead(r.status ?? 200, { 'content-type': r.type ?? (r.body.trimStart().startsWith('<') ? 'application/xml' : 'application/json') });
      res.end(r.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  t.teardown(close);
  return {
    url, requests, close,
    on: (path, reply) => { routes.set(path, reply); },
    waitFor(path, count = 1) {
      const have = requests.filter((r) => r.path === path);
      if (have.length >= count) return Promise.resolve(have[count - 1]!);
      return new Promise((resolve) => waiters.push({ path, count, resolve }));
    },
  };
}

export const xml = (inner: string) => ({ body: `<?xml version="1.0" encoding="UTF-8"?><Response>${inner}</Response>` });
