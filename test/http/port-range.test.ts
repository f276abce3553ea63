// PORT as a range: each node takes the first free port of it, so several nodes on one host's network (docker compose
// --scale app=2, host networking) come up side by side (docs/cluster.md, "Several nodes on one host").
import t from 'tap';
import { createServer, type Server } from 'node:net';
import Fastify from 'fastify';
import { loadConfig, ConfigError } from '../../src/config.js';
import { listenOnFirstFree } from '../../src/http/listen-range.js';
import { freePort, startServerProcess } from '../helpers/server-process.js';
import { tempDir } from '../helpers/harness.js';

type Tap = Parameters<typeof tempDir>[0];

/** Holds `port` on 127.0.0.1 (resolves false if another process already has it: taken either way). */
function hold(t: Tap, port: number): Promise<boolean> {
  const server: Server = createServer();
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  return new Promise((resolve) => {
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => resolve(true));
  });
}

t.test('PORT: one port or a range; bad ranges refused with a clear message', async (t) => {
  t.match(loadConfig({ PORT: '9000' }), { port: 9000, portLast: 9000 });
  t.match(loadConfig({ PORT: '8080-8089' }), { port: 8080, portLast: 8089 });
  for (const bad of ['8089-8080', '8080-70000', '1000-3000', '8080-', '-8080']) {
    t.throws(() => loadConfig({ PORT: bad }), ConfigError, `PORT=${bad} refused`);
  }
  t.throws(() => loadConfig({ PORT: '8089-8080' }), /PORT must be a port \(0 to 65535\) or a range of up to 1000 ports such as 8080-8089, got "8089-8080"/);
});

t.test('listenOnFirstFree: the first free port of the range; a clear error when none is', async (t) => {
  const first = await freePort();
  await hold(t, first);
  const apps = [Fastify(), Fastify()];
  t.teardown(() => Promise.all(apps.map((a) => a.close())));
  for (const app of apps) await listenOnFirstFree(app, '127.0.0.1', first, first + 9);
  const ports = apps.map((a) => (a.server.address() as { port: number }).port);
  t.ok(ports.every((p) => p > first && p <= first + 9), `both inside the range, past the held port (${ports.join(', ')})`);
  t.not(ports[0], ports[1], 'each its own');

  const full = await freePort();
  await hold(t, full);
  await hold(t, full + 1);
  const late = Fastify();
  t.teardown(() => late.close());
  await t.rejects(listenOnFirstFree(late, '127.0.0.1', full, full + 1), /no port of PORT \d+-\d+ is free on 127\.0\.0\.1/);
  const single = Fastify();
  t.teardown(() => single.close());
  await t.rejects(listenOnFirstFree(single, '127.0.0.1', full, full), { code: 'EADDRINUSE' }, 'one port taken: the system\'s own error');
});

t.test('two nodes started with one PORT range come up on two ports, both healthy', async (t) => {
  const first = await freePort();
  await hold(t, first);
  const range = `${first}-${first + 9}`;
  const nodes = await Promise.all([0, 1].map(() => startServerProcess({ PORT: range, RINGBASE_DATA_DIR: tempDir(t) }, t)));
  const ports = nodes.map((n) => Number(new URL(n.url).port));
  t.not(ports[0], ports[1], `two ports (${ports.join(', ')})`);
  t.ok(ports.every((p) => p > first && p <= first + 9), 'both in the range');
  for (const n of nodes) t.equal((await fetch(`${n.url}/healthz`)).status, 200, `${n.url} answers`);
});
