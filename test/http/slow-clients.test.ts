// Slow and greedy clients against the real listener, over raw sockets on 127.0.0.1: stalled headers and bodies
// are cut (with the default configuration, timed), oversized headers get a 431, bodies over a route's limit a
// 413 in each root's shape, and one address cannot hold more than its share of connections.
import t from 'tap';
import net from 'node:net';
import tls from 'node:tls';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startPreviewHarness } from './preview/helpers.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { NumberService } from '../../src/numbers/service.js';
import { operatorToken } from '../../src/operator-token.js';

interface Raw {
  /** Everything the server sent. */
  text: string;
  /** From connect until the server had closed the connection. */
  closedAfterMs: number;
  closedAt: number;
  /** A socket error (a reset) instead of a clean close. */
  error: string | null;
}

const portOf = (h: Harness) => Number(new URL(h.url).port);

/** Connects, lets `talk` write, and collects what comes back until the connection closes. */
function raw(h: Harness, talk: (socket: net.Socket) => void = () => {}): Promise<Raw> {
  return new Promise((resolve) => {
    const socket = net.connect(portOf(h), '127.0.0.1');
    const chunks: Buffer[] = [];
    let started = 0;
    let error: string | null = null;
    socket.on('connect', () => { started = Date.now(); talk(socket); });
    socket.on('data', (d) => chunks.push(d));
    socket.on('error', (e: NodeJS.ErrnoException) => { error = e.code ?? e.message; });
    socket.on('close', () => resolve({ text: Buffer.concat(chunks).toString(), closedAfterMs: Date.now() - started, closedAt: Date.now(), error }));
  });
}

function parsed(r: Raw): { status: number; headers: string; body: any } {
  const [head = '', body = ''] = r.text.split('\r\n\r\n');
  return { status: Number(head.split(' ')[1]), headers: head, body: body ? JSON.parse(body) : undefined };
}

/** A keep-alive connection that has been served once, so the server has certainly admitted it. */
function servedConnection(h: Harness): Promise<net.Socket> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(portOf(h), '127.0.0.1', () => socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
    socket.once('data', (d) => (String(d).startsWith('HTTP/1.1 200') ? resolve(socket) : reject(new Error(String(d)))));
    socket.once('error', reject);
  });
}

t.test('default configuration: stalled headers, a stalled body and silent connections are cut within 20 s (timed)', async (t) => {
  const h = await startHarness(t);
  const { key } = await h.account();
  t.same(h.config.http, { headersTimeoutMs: 10_000, requestTimeoutMs: 15_000, keepAliveTimeoutMs: 5_000, idleTimeoutMs: 60_000, maxConnectionsPerIp: 64 });
  const request = `POST /api/calls HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\n`;
  let servedAt = 0;
  const [headers, body, silent, keepAlive] = await Promise.all([
    raw(h, (s) => s.write(request)),
    raw(h, (s) => s.write(`${request}Content-Length: 1000\r\n\r\n{"from": "`)),
    raw(h),
    raw(h, (s) => {
      s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n');
      s.once('data', () => { servedAt = Date.now(); });
    }),
  ]);
  const idleMs = keepAlive.closedAt - servedAt;
  t.comment(`stalled headers cut after ${headers.closedAfterMs} ms, stalled body after ${body.closedAfterMs} ms, `
    + `a silent connection after ${silent.closedAfterMs} ms, an idle keep-alive connection ${idleMs} ms after its response`);
  for (const [what, r, min] of [['stalled headers', headers, 10_000], ['stalled body', body, 15_000], ['silent connection', silent, 10_000]] as const) {
    t.ok(r.closedAfterMs >= min - 50 && r.closedAfterMs <= 20_000, `${what}: cut after ${r.closedAfterMs} ms`);
    t.equal(r.error, null, `${what}: closed, not reset`);
    const res = parsed(r);
    t.equal(res.status, 408, `${what}: told why`);
    t.match(res.headers, /connection: close/i);
    t.same(res.body, {
      error: 'The request was not received in time: headers are due within 10 s and the whole request within 15 s.',
      code: 'request_timeout',
    });
  }
  t.ok(idleMs >= 4_950 && idleMs <= 7_000, `an idle keep-alive connection is closed about 5 s after its response (${idleMs} ms)`);
  t.match(keepAlive.text, /^HTTP\/1.1 200/);
  t.equal(keepAlive.error, null);
});

t.test('oversized headers get 431 and a clean close, not a reset', async (t) => {
  const h = await startHarness(t);
  const get = (headerBytes: number) => raw(h, (s) => s.write(`GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\nX-Big: ${'a'.repeat(headerBytes)}\r\n\r\n`));
  const fits = await get(15 * 1024);
  t.match(fits.text, /^HTTP\/1.1 200/, '15 KiB of headers are served');
  for (const size of [64 * 1024, 1024 * 1024]) {
    const r = await get(size);
    const res = parsed(r);
    t.equal(res.status, 431, `${size / 1024} KiB of headers: 431`);
    t.same(res.body, { error: 'The request headers are too large: at most 16 KiB in all.', code: 'headers_too_large' });
    t.equal(r.error, null, `${size / 1024} KiB of headers: closed, not reset`);
  }
});

t.test('body limits per route, in each root\'s error shape', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  await h.account();
  const trunk = await h.request('POST', '/api/partner/trunks', { body: { name: 'x'.repeat(100 * 1024) } });
  t.equal(trunk.status, 413, 'a 100 KiB trunk body is refused');
  t.same(trunk.body, { error: 'The request body is too large: this endpoint accepts at most 64 KiB.' });

  const call = (markupBytes: number) => h.request('POST', '/api/calls', { body: { from: '+15550001000', to: '+15550004444', markup: 'x'.repeat(markupBytes) } });
  const bigMarkup = await call(100 * 1024);
  t.equal(bigMarkup.status, 422, 'POST /api/calls reads 100 KiB (inline markup), then judges it');
  t.match(bigMarkup.body.errors.markup, [/./]);
  const tooBig = await call(600 * 1024);
  t.equal(tooBig.status, 413);
  t.same(tooBig.body, { error: 'The request body is too large: this endpoint accepts at most 512 KiB.' });

  const form = await fetch(`${h.url}/dashboard/login`, {
    method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: `email=${'a'.repeat(100 * 1024)}`,
  });
  t.equal(form.status, 413, 'a dashboard form over 64 KiB');
  t.match(form.headers.get('content-type'), /text\/html/);
  t.match(await form.text(), /The request body is too large: this endpoint accepts at most 64 KiB\. Go back, shorten the form and try again\./);
});

t.test('preview root: 413 in the envelope', async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  const res = await h.v1('POST', '/v1/webhooks', { body: { event_type: 'call.completed', target_url: `https://127.0.0.1/${'x'.repeat(200 * 1024)}` } });
  t.equal(res.status, 413);
  t.same(res.body, { error: {
    type: 'invalid_request_error', code: 'payload_too_large', message: 'The request body is too large: this endpoint accepts at most 128 KiB.',
    status: 413, request_id: res.headers.get('x-request-id'),
  } });
});

t.test('connections per address are capped; a freed slot is taken again; trusted proxies are exempt', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_HTTP_MAX_CONNECTIONS_PER_IP: '3' } });
  const held = await Promise.all([servedConnection(h), servedConnection(h), servedConnection(h)]);
  t.teardown(() => held.forEach((s) => s.destroy()));
  const refused = await raw(h, (s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n'));
  const res = parsed(refused);
  t.equal(res.status, 503, 'the fourth connection from 127.0.0.1 is refused');
  t.match(res.headers, /connection: close/i);
  t.same(res.body, { error: 'Too many open connections from your address (at most 3); close some and retry.', code: 'too_many_connections' });
  t.equal(refused.error, null, 'with an answer, not a reset');

  held[0]!.end();
  // The server sees the close a moment after the client does: retry until it has.
  await until('a freed slot to be accepted', 2_000, async () => parsed(await raw(h, (s) => s.write('GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n'))).status === 200, 20);
  t.pass('once one closes, a new connection is served');

  const proxied = await startHarness(t, { env: { RINGBASE_HTTP_MAX_CONNECTIONS_PER_IP: '3', RINGBASE_TRUSTED_PROXIES: '127.0.0.1' } });
  const many = await Promise.all(Array.from({ length: 5 }, () => servedConnection(proxied)));
  t.teardown(() => many.forEach((s) => s.destroy()));
  t.equal(many.length, 5, 'a trusted proxy carries many clients: not capped');
});

t.test('over TLS a connection over the cap is closed before the handshake (no plain-text answer is possible)', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_TLS_SELF_SIGNED: '1', RINGBASE_HTTP_MAX_CONNECTIONS_PER_IP: '1' } });
  const connect = () => new Promise<{ socket: tls.TLSSocket; outcome: string }>((resolve) => {
    const socket = tls.connect({ port: portOf(h), host: '127.0.0.1', rejectUnauthorized: false }, () => resolve({ socket, outcome: 'handshake' }));
    socket.once('error', (e: NodeJS.ErrnoException) => resolve({ socket, outcome: e.code ?? e.message }));
  });
  const first = await connect();
  t.teardown(() => first.socket.destroy());
  t.equal(first.outcome, 'handshake', 'the first connection is admitted');
  const second = await connect();
  t.not(second.outcome, 'handshake', `the second is closed (${second.outcome})`);
});

t.test('the idle timeout cuts silent connections, but not a simulated call that is silent through a pause', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_HTTP_IDLE_TIMEOUT_MS: '500', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const silent = await raw(h, (s) => s.write('GET /healthz HTTP/1.1\r\n'));
  t.ok(silent.closedAfterMs < 5_000, `a silent connection is cut by the idle timeout (${silent.closedAfterMs} ms), before the headers deadline`);

  const app = await startWebhookApp(t);
  app.on('/voice', xml('<Pause length="2"/><Hangup/>'));
  const a = await h.account();
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add('+15550001000', a.id, { webhook_url: `${app.url}/voice` });
  const res = await fetch(`${h.url}/operator/simulate/inbound`, {
    method: 'POST',
    headers: { authorization: `Bearer ${operatorToken(h.dataDir, false)}`, 'content-type': 'application/json' },
    body: JSON.stringify({ from: '+15557770001', to: '+15550001000' }),
  });
  const events = (await res.text()).trim().split('\n').map((l) => JSON.parse(l) as { source: string; type: string });
  t.same(events.at(-1)?.type, 'done', 'the whole simulation streamed, through 2 s of silence');
});
