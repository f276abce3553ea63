// Each request's logger is bound to its request id but made only when the request logs something.
import t from 'tap';
import Fastify, { LogController, type FastifyInstance } from 'fastify';
import { Writable } from 'node:stream';
import { createLogger } from '../../src/logger.js';
import { lazyRequestLogger } from '../../src/http/request-logger.js';

t.test('a request that logs writes lines bound to its id, redacted; one that does not makes no child', async (t) => {
  const written: string[] = [];
  const logger = createLogger('info', new Writable({ write(chunk, _enc, done) { written.push(String(chunk)); done(); } }));
  let children = 0;
  // pino's children inherit from their parent, this spy included: it counts every child made, under any logger.
  const child = logger.child;
  logger.child = function (this: typeof logger, ...args: Parameters<typeof child>) { children++; return child.apply(this, args); } as typeof child;
  let n = 0;
  const http = Fastify({
    loggerInstance: logger, logController: new LogController({ disableRequestLogging: true }),
    genReqId: () => `req_${++n}`, childLoggerFactory: lazyRequestLogger,
  }) as unknown as FastifyInstance;
  http.get('/quiet', async () => ({ ok: true }));
  http.get('/talks', async (req) => {
    req.log.warn({ password: 'hunter2', n: 1 }, 'first');
    req.log.child({ part: 'inner' }).info('second');
    t.equal(req.log.level, 'info');
    return { ok: true };
  });
  await http.ready();
  t.teardown(() => http.close());
  children = 0;
  t.equal((await http.inject({ method: 'GET', url: '/quiet' })).statusCode, 200);
  t.equal(children, 0, 'no child logger for a request that logged nothing');
  t.equal((await http.inject({ method: 'GET', url: '/talks' })).statusCode, 200);
  t.equal(children, 2, "the request's child, made once for both lines, and the child the route asked for");
  const lines = written.join('').trim().split('\n').map((l) => JSON.parse(l) as Record<string, unknown>);
  t.match(lines, [{ level: 40, reqId: 'req_2', msg: 'first', password: '[redacted]', n: 1 }, { level: 30, reqId: 'req_2', part: 'inner', msg: 'second' }]);
});
