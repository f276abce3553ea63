import t from 'tap';
import { createGuardedClient } from '../../src/net/guarded-client.js';
import { createGuardedConnector } from '../../src/net/guarded-connector.js';
import { OutboundError, TargetRefusedError } from '../../src/net/errors.js';
import { installLoopbackTripwire, startLocalServer, tableLookup } from './support/loopback.js';
import { HOSTILE_URLS as corpus } from './support/hostile-urls.js';

// Names the injected resolver knows. Hostile ones point inward; nothing here is ever dialled.
const DNS = tableLookup({
  'internal.example.com': ['10.0.0.5'],
  'rebind.example.com': ['127.0.0.1'],
  'rebind6.example.com': ['::1'],
  'metadata-alias.example.com': ['169.254.169.254'],
  'mapped.example.com': ['::ffff:192.168.0.1'],
  // One public record is not enough: Happy Eyeballs may pick any of them.
  'mixed.example.com': ['93.184.216.34', '192.168.0.10'],
  'mixed6.example.com': ['2606:4700:4700::1111', 'fd12:3456::1'],
});

t.ok(corpus.length >= 40, `corpus has ${corpus.length} hostile targets`);

const violations: string[] = [];
const removeTripwire = installLoopbackTripwire((what) => violations.push(what));
t.teardown(removeTripwire);

const client = createGuardedClient({ allowLoopback: false, lookup: DNS });
t.teardown(() => client.close());

for (const { url, rule, allowHosts } of corpus) {
  t.test(`refuses ${url}${allowHosts ? ` (allow-list ${JSON.stringify(allowHosts)})` : ''}`, async (t) => {
    const err = await client.request(url, { method: 'POST', body: '{}', allowHosts }).then(
      () => null,
      (e: unknown) => e,
    );
    t.type(err, TargetRefusedError);
    t.equal((err as TargetRefusedError).rule, rule, (err as Error).message);
    t.equal((err as OutboundError).code, rule === 'unresolvable' ? 'unresolvable' : 'target_refused');
  });
}

t.test('the connector refuses literal private IPs even if the URL check were bypassed', async (t) => {
  const connect = createGuardedConnector({ allowLoopback: false, lookup: DNS });
  for (const hostname of ['10.0.0.5', '127.0.0.1', '::1', '169.254.169.254']) {
    const err = await new Promise<Error | null>((resolve) =>
      connect({ hostname, protocol: 'http:', port: '80' }, (...args) => resolve(args[0])),
    );
    t.type(err, TargetRefusedError, hostname);
  }
});

t.test('a redirect from an allowed loopback server is returned, not followed', async (t) => {
  let targetHits = 0;
  const target = await startLocalServer((_req, res) => {
    targetHits++;
    res.end('should never be reached');
  });
  t.teardown(target.close);
  const redirector = await startLocalServer((_req, res) => {
    res.writeHead(302, { location: `${target.origin}/secret` }).end();
  });
  t.teardown(redirector.close);
  const devClient = createGuardedClient({ allowLoopback: true });
  t.teardown(() => devClient.close());

  const response = await devClient.request(`${redirector.origin}/hook`, { method: 'POST', body: '{}' });
  t.equal(response.status, 302);
  t.equal(response.headers.location, `${target.origin}/secret`);
  t.equal(targetHits, 0, 'redirect target was not contacted');
});

t.test('no connection left the host', async (t) => {
  t.same(violations, []);
});
