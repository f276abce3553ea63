// The request log: one line per request once it is answered (method, route pattern, status, duration, request id),
// none of fastify's own; LOG_LEVEL=debug adds the URL as sent, sensitive query values redacted.
import t, { type Test } from 'tap';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';
import { requestLog } from '../../src/http/request-log.js';
import { installRequestEnd } from '../../src/http/request-end.js';

async function served(t: Test, level: string): Promise<{ lines: () => Array<Record<string, unknown>>; get(url: string): Promise<number> }> {
  const written: string[] = [];
  const logger = createLogger(level, new Writable({ write(chunk, _enc, done) { written.push(String(chunk)); done(); } }));
  const http = Fastify({ loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }) }) as unknown as FastifyInstance;
  installRequestEnd(http, [requestLog(logger)]);
  http.get('/trunks/:id', async () => ({ ok: true }));
  await http.ready();
  t.teardown(() => http.close());
  return {
    lines: () => written.join('').split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>),
    // Lines are written at the end of the event-loop turn the request ended in.
    get: async (url) => { const { statusCode } = await http.inject({ method: 'GET', url }); await new Promise(setImmediate); return statusCode; },
  };
}

t.test('info: one line per request, the route and not the URL', async (t) => {
  const s = await served(t, 'info');
  t.equal(await s.get('/trunks/7?api_key=sk_live_secret'), 200);
  t.equal(await s.get('/nowhere'), 404);
  const lines = s.lines();
  t.equal(lines.length, 2, 'one line each, nothing else');
  t.match(lines[0], { level: 30, msg: 'request', method: 'GET', route: '/trunks/:id', status: 200, ms: Number, reqId: String });
  t.match(lines[1], { msg: 'request', route: null, status: 404 }, 'a request no route matched says so');
  t.notOk(JSON.stringify(lines).includes('sk_live_secret'), 'the query never reaches the log');
  t.notOk('url' in lines[0]!, 'no URL at info');
});

t.test('debug: the same line with the URL (sensitive values redacted) and the client\'s address', async (t) => {
  const s = await served(t, 'debug');
  await s.get('/trunks/7?page=2&api_key=sk_live_secret');
  const [line] = s.lines().filter((l) => l.msg === 'request');
  t.match(line, { level: 20, route: '/trunks/:id', status: 200, url: '/trunks/7?page=2&api_key=[redacted]', remoteAddress: '127.0.0.1' });
});

t.test('info: the line has the fields of any other line, in pino\'s order', async (t) => {
  const s = await served(t, 'info');
  await s.get('/trunks/7');
  const [line] = s.lines();
  t.same(Object.keys(line!), ['level', 'time', 'pid', 'hostname', 'reqId', 'method', 'route', 'status', 'ms', 'msg']);
  t.equal(line!.pid, process.pid);
  t.ok(Math.abs(Number(line!.time) - Date.now()) < 60_000, 'time in epoch milliseconds');
});

t.test('warn: no request lines', async (t) => {
  const s = await served(t, 'warn');
  t.equal(await s.get('/trunks/7'), 200);
  t.same(s.lines(), []);
});
