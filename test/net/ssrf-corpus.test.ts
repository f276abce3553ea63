import t from 'tap';
import { createGuardedClient } from '../../src/net/guarded-client.js';
import { createGuardedConnector } from '../../src/net/guarded-connector.js';
import { OutboundError, TargetRefusedError } from '../../src/net/errors.js';
import { installLoopbackTripwire, startLocalServer, tableLookup } from './support/loopback.js';

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

interface HostileCase { url: string; rule: string; allowHosts?: string[] }

const corpus: HostileCase[] = [
  // Loopback in every spelling WHATWG URL and the IPv6 embeddings allow.
  { url: 'http://127.0.0.1/', rule: 'address_refused' },
  { url: 'http://127.0.0.1:8080/admin', rule: 'address_refused' },
  { url: 'http://2130706433/', rule: 'address_refused' },
  { url: 'http://0177.0.0.1/', rule: 'address_refused' },
  { url: 'http://0x7f.0.0.1/', rule: 'address_refused' },
  { url: 'http://0x7f000001/', rule: 'address_refused' },
  { url: 'http://127.1/', rule: 'address_refused' },
  { url: 'http://127.0.0.1./', rule: 'address_refused' },
  { url: 'http://[::1]/', rule: 'address_refused' },
  { url: 'http://[::ffff:127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[::ffff:7f00:1]/', rule: 'address_refused' },
  { url: 'http://[0:0:0:0:0:ffff:127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[::127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[64:ff9b::127.0.0.1]/', rule: 'address_refused' },
  { url: 'http://[2002:7f00:1::1]/', rule: 'address_refused' },
  { url: 'http://[2001::1]/', rule: 'address_refused' },
  // Loopback and infrastructure names.
  { url: 'http://localhost/', rule: 'internal_hostname' },
  { url: 'http://localhost./', rule: 'internal_hostname' },
  { url: 'http://LOCALHOST/', rule: 'internal_hostname' },
  { url: 'http://%6c%6fcalhost/', rule: 'internal_hostname' },
  { url: 'http://foo.localhost/', rule: 'internal_hostname' },
  { url: 'http://metadata.google.internal/computeMetadata/v1/', rule: 'internal_hostname' },
  { url: 'http://metadata/', rule: 'internal_hostname' },
  { url: 'http://instance-data/latest/', rule: 'internal_hostname' },
  { url: 'https://printer.local/', rule: 'internal_hostname' },
  // Cloud metadata endpoints.
  { url: 'http://169.254.169.254/latest/meta-data/', rule: 'address_refused' },
  { url: 'http://[::ffff:169.254.169.254]/', rule: 'address_refused' },
  { url: 'http://[fd00:ec2::254]/', rule: 'address_refused' },
  { url: 'http://100.100.100.200/', rule: 'address_refused' },
  // Private, shared, unspecified, link-local, multicast, broadcast, reserved, benchmarking.
  { url: 'http://100.64.0.1/', rule: 'address_refused' },
  { url: 'http://0.0.0.0/', rule: 'address_refused' },
  { url: 'http://0/', rule: 'address_refused' },
  { url: 'http://[::]/', rule: 'address_refused' },
  { url: 'http://10.0.0.1/', rule: 'address_refused' },
  { url: 'http://10.255.255.254/', rule: 'address_refused' },
  { url: 'http://172.16.0.1/', rule: 'address_refused' },
  { url: 'http://172.31.255.255/', rule: 'address_refused' },
  { url: 'http://192.168.1.1/', rule: 'address_refused' },
  { url: 'http://[fe80::1]/', rule: 'address_refused' },
  { url: 'http://169.254.0.1/', rule: 'address_refused' },
  { url: 'http://[fc00::1]/', rule: 'address_refused' },
  { url: 'http://[fd12:3456::1]/', rule: 'address_refused' },
  { url: 'http://224.0.0.1/', rule: 'address_refused' },
  { url: 'http://[ff02::1]/', rule: 'address_refused' },
  { url: 'http://255.255.255.255/', rule: 'address_refused' },
  { url: 'http://240.0.0.1/', rule: 'address_refused' },
  { url: 'http://198.18.0.1/', rule: 'address_refused' },
  // Names that only turn hostile once resolved: judged at connect time.
  { url: 'https://internal.example.com/hook', rule: 'address_refused' },
  { url: 'https://rebind.example.com/hook', rule: 'address_refused' },
  { url: 'https://rebind6.example.com/hook', rule: 'address_refused' },
  { url: 'https://metadata-alias.example.com/', rule: 'address_refused' },
  { url: 'https://mapped.example.com/', rule: 'address_refused' },
  { url: 'https://mixed.example.com/hook', rule: 'address_refused' },
  { url: 'https://mixed6.example.com/hook', rule: 'address_refused' },
  { url: 'https://nowhere.example.com/hook', rule: 'unresolvable' },
  // Parser-confusion tricks.
  { url: 'https://example.com@127.0.0.1/', rule: 'userinfo_not_allowed' },
  { url: 'https://user:pass@example.com/', rule: 'userinfo_not_allowed' },
  { url: 'https://127.0.0.1#@example.com', rule: 'address_refused' },
  { url: 'https://127.0.0.1?@example.com/', rule: 'address_refused' },
  // Allow-list boundary.
  { url: 'https://evil-example.com/', rule: 'host_not_allowed', allowHosts: ['example.com'] },
  { url: 'https://example.com.evil.net/', rule: 'host_not_allowed', allowHosts: ['example.com'] },
  { url: 'https://other.org/', rule: 'host_not_allowed', allowHosts: [] },
  // Schemes and transport.
  { url: 'file:///etc/passwd', rule: 'scheme_not_allowed' },
  { url: 'gopher://127.0.0.1:6379/_INFO', rule: 'scheme_not_allowed' },
  { url: 'ftp://example.com/', rule: 'scheme_not_allowed' },
  { url: 'javascript:alert(1)', rule: 'scheme_not_allowed' },
  { url: 'http://internal.example.com/hook', rule: 'https_required' },
  { url: 'not a url', rule: 'invalid_url' },
];

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
