import t from 'tap';
import type { IncomingMessage } from 'node:http';
import { createGuardedClient } from '../../src/net/guarded-client.js';
import {
  OutboundError,
  ResponseTooLargeError,
  TargetRefusedError,
  TargetTimeoutError,
  TargetUnreachableError,
} from '../../src/net/errors.js';
import { installLoopbackTripwire, startLocalServer, tableLookup } from './support/loopback.js';

const violations: string[] = [];
t.teardown(installLoopbackTripwire((what) => violations.push(what)));

const client = createGuardedClient({
  allowLoopback: true,
  lookup: tableLookup({ localhost: ['127.0.0.1'], 'dev.example.com': ['127.0.0.1'] }),
});
t.teardown(() => client.close());

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString();
}

t.test('POSTs headers and body to a loopback server and returns the full response', async (t) => {
  let seen: { method?: string; headers?: IncomingMessage['headers']; body?: string } = {};
  const server = await startLocalServer(async (req, res) => {
    seen = { method: req.method, headers: req.headers, body: await readBody(req) };
    res.writeHead(201, { 'x-reply': 'yes', 'content-type': 'text/plain' }).end('thanks');
  });
  t.teardown(server.close);

  const response = await client.request(`${server.origin}/hook?x=1`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-service-event': 'hangup' },
    body: '{"a":1}',
  });
  t.equal(seen.method, 'POST');
  t.equal(seen.headers?.['x-service-event'], 'hangup');
  t.equal(seen.body, '{"a":1}');
  t.equal(response.status, 201);
  t.equal(response.headers['x-reply'], 'yes');
  t.equal(response.body.toString(), 'thanks');
  t.equal(response.remoteAddress, '127.0.0.1');
  t.ok(response.latencyMs >= 0);
});

t.test('keeps connections alive between requests to the same origin', async (t) => {
  const server = await startLocalServer((_req, res) => res.end('ok'));
  t.teardown(server.close);
  for (let i = 0; i < 10; i++) t.equal((await client.request(`${server.origin}/`)).status, 200);
  // undici's pool may open a second socket while the first is still marked busy; after that
  // both are reused, so ten sequential requests must not mean ten handshakes.
  t.ok(server.connections() <= 2, `${server.connections()} connections for 10 requests`);
});

t.test('`localhost` resolves and connects in allowLoopback mode', async (t) => {
  const server = await startLocalServer((_req, res) => res.end('hi'));
  t.teardown(server.close);
  const response = await client.request(`http://localhost:${server.port}/`);
  t.equal(response.body.toString(), 'hi');
  t.equal(response.remoteAddress, '127.0.0.1');
});

t.test('allowLoopback does not extend to other names that resolve to loopback', async (t) => {
  const server = await startLocalServer((_req, res) => res.end('no'));
  t.teardown(server.close);
  const err = await client.request(`https://dev.example.com:${server.port}/`).catch((e: unknown) => e);
  t.type(err, TargetRefusedError);
  t.equal((err as TargetRefusedError).rule, 'address_refused');
  t.equal(server.connections(), 0);
});

t.test('a server that never answers fails with TargetTimeoutError within the budget', async (t) => {
  const server = await startLocalServer(() => {
    /* hold the request open */
  });
  t.teardown(server.close);
  const err = await client.request(`${server.origin}/`, { timeoutMs: 200 }).catch((e: unknown) => e);
  t.type(err, TargetTimeoutError);
  t.equal((err as OutboundError).code, 'target_timeout');
});

t.test('a body that stalls midway also hits the total timeout', async (t) => {
  const server = await startLocalServer((_req, res) => {
    res.writeHead(200);
    res.write('partial');
  });
  t.teardown(server.close);
  const err = await client.request(`${server.origin}/`, { timeoutMs: 200 }).catch((e: unknown) => e);
  t.type(err, TargetTimeoutError);
});

t.test('response bodies over the cap fail', async (t) => {
  const big = Buffer.alloc(64 * 1024, 'x');
  const server = await startLocalServer((req, res) => {
    // One route announces its length, the other streams chunked, so both paths are covered.
    if (req.url === '/chunked') {
      res.write(big);
      res.end(big);
    } else {
      res.end(big);
    }
  });
  t.teardown(server.close);
  for (const path of ['/sized', '/chunked']) {
    const err = await client.request(`${server.origin}${path}`, { maxResponseBytes: 1000 }).catch((e: unknown) => e);
    t.type(err, ResponseTooLargeError, path);
    t.equal((err as OutboundError).code, 'response_too_large');
  }
  const ok = await client.request(`${server.origin}/sized`, { maxResponseBytes: big.length });
  t.equal(ok.body.length, big.length, 'a body exactly at the cap is fine');
});

t.test('a dropped connection is TargetUnreachableError', async (t) => {
  const server = await startLocalServer((req) => req.socket.destroy());
  t.teardown(server.close);
  const err = await client.request(`${server.origin}/`).catch((e: unknown) => e);
  t.type(err, TargetUnreachableError);
  t.equal((err as OutboundError).code, 'target_unreachable');
});

t.test('a closed port is TargetUnreachableError', async (t) => {
  const server = await startLocalServer(() => undefined);
  const { origin } = server;
  await server.close();
  const err = await client.request(`${origin}/`).catch((e: unknown) => e);
  t.type(err, TargetUnreachableError);
});

t.test('without allowLoopback the same servers are refused before connecting', async (t) => {
  const server = await startLocalServer((_req, res) => res.end('no'));
  t.teardown(server.close);
  const strict = createGuardedClient({ allowLoopback: false });
  t.teardown(() => strict.close());
  const err = await strict.request(`${server.origin}/`).catch((e: unknown) => e);
  t.type(err, TargetRefusedError);
  t.equal(server.connections(), 0);
});

t.test('no connection left the host', async (t) => {
  t.same(violations, []);
});
