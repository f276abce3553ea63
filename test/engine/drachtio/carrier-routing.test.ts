// Which carrier a call came from, and the order a call to a number tries the gateways in (src/engine/drachtio/carriers.ts).
import t from 'tap';
import { attemptsFor, carrierAt, gatewayUri, type CarrierEntry } from '../../../src/engine/drachtio/carriers.js';
import { gatewayKey } from '../../../src/store/carriers.js';
import { E164_RULES } from '../../../src/net/number-rules.js';
import type { CarrierGateway, CarrierRoute, CarrierSource } from '../../../src/store/carriers.js';

function carrier(name: string, o: { sources?: CarrierSource[]; gateways?: Array<Partial<CarrierGateway> & { host: string }>; routes?: Array<Partial<CarrierRoute>> }): CarrierEntry {
  return {
    name, id: 1, sources: o.sources ?? [], auth: null, registration: null, numbers: E164_RULES, dtmf: 'rfc2833', codecs: [], srtp: 'off', optionsPingS: null,
    gateways: (o.gateways ?? []).map((g) => ({ port: null, transport: 'udp', priority: 0, weight: 1, ...g })),
    routes: (o.routes ?? []).map((r) => ({ prefix: '', priority: 0, weight: 1, ...r })),
  };
}
const directory = (all: CarrierEntry[]) => ({ list: async () => all });
const hosts = (attempts: ReturnType<typeof attemptsFor>) => attempts.map((a) => a.gateway.host);

t.test('inbound: a source address or range, on its port or any; the most specific source wins', async (t) => {
  const wide = carrier('wide', { sources: [{ network: '203.0.113.0/24', port: null }] });
  const narrow = carrier('narrow', { sources: [{ network: '203.0.113.8/29', port: null }] });
  const onPort = carrier('on-port', { sources: [{ network: '203.0.113.0/24', port: 5080 }] });
  const v6 = carrier('v6', { sources: [{ network: '2001:db8::/32', port: null }] });
  const dir = directory([wide, narrow, onPort, v6]);
  t.equal((await carrierAt(dir, '203.0.113.1', 5060))?.name, 'wide');
  t.equal((await carrierAt(dir, '203.0.113.9', 5060))?.name, 'narrow', 'a narrower range wins');
  t.equal((await carrierAt(dir, '203.0.113.9', 5080))?.name, 'on-port', 'a source naming the port wins');
  t.equal((await carrierAt(dir, '2001:db8::5', 5060))?.name, 'v6');
  t.equal((await carrierAt(dir, '::ffff:203.0.113.1', 5060))?.name, 'wide', 'an IPv4-mapped address is its IPv4 address');
  t.equal(await carrierAt(dir, '198.51.100.1', 5060), undefined, 'no carrier: refused as before');
});

t.test('outbound: longest prefix, then priority, then weight; each carrier once; its gateways by priority', async (t) => {
  const uk = carrier('uk', { routes: [{ prefix: '+44' }], gateways: [{ host: 'uk-b', priority: 1 }, { host: 'uk-a', priority: 0 }] });
  const cheap = carrier('cheap', { routes: [{ prefix: '' }, { prefix: '+4420', priority: 5 }], gateways: [{ host: 'cheap' }] });
  const backup = carrier('backup', { routes: [{ prefix: '+4420', priority: 1 }], gateways: [{ host: 'backup' }] });
  const all = [uk, cheap, backup];
  t.same(hosts(attemptsFor(all, '+442079460001')), ['backup', 'cheap', 'uk-a', 'uk-b'], '+4420 routes first (priority 1 before 5), then +44');
  t.same(hosts(attemptsFor(all, '+441619460001')), ['uk-a', 'uk-b', 'cheap']);
  t.same(hosts(attemptsFor(all, '+15550001000')), ['cheap'], 'only the route for every number');
  t.same(hosts(attemptsFor([uk], '+15550001000')), [], 'no route');
  t.same(hosts(attemptsFor(all, '+442079460001', (key) => !key.startsWith('cheap/'))), ['backup', 'uk-a', 'uk-b'], 'a gateway found down is left out');
});

t.test('weights share the first try in proportion; weight 0 is tried only after the others of its rank', async (t) => {
  const shared = carrier('shared', { routes: [{}], gateways: [{ host: 'heavy', weight: 3 }, { host: 'light', weight: 1 }, { host: 'never-first', weight: 0 }] });
  let seed = 1;
  const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647);
  const firsts = { heavy: 0, light: 0, 'never-first': 0 };
  for (let i = 0; i < 4000; i++) {
    const order = hosts(attemptsFor([shared], '+1555', () => true, random));
    firsts[order[0] as keyof typeof firsts]++;
    t.equal(order.length, 3);
    if (i < 5) t.equal(order[2], 'never-first');
  }
  t.ok(firsts.heavy > 2700 && firsts.heavy < 3300, `heavy first ${firsts.heavy} of 4000 (expected about 3000)`);
  t.equal(firsts['never-first'], 0);
});

t.test('gateway addresses as the INVITE and the health checks name them', async (t) => {
  const g = (o: Partial<CarrierGateway>): CarrierGateway => ({ host: '192.0.2.7', port: null, transport: 'udp', priority: 0, weight: 1, ...o });
  t.equal(gatewayUri(g({}), '+15550001000'), 'sip:+15550001000@192.0.2.7:5060');
  t.equal(gatewayUri(g({ transport: 'tls' }), '9020'), 'sip:9020@192.0.2.7:5061;transport=tls', 'TLS on 5061 by default');
  t.equal(gatewayUri(g({ host: '2001:db8::7', port: 5080, transport: 'tcp' }), '1'), 'sip:1@[2001:db8::7]:5080;transport=tcp');
  t.equal(gatewayKey('acme', g({ port: 5070 })), 'acme/udp:192.0.2.7:5070');
});
