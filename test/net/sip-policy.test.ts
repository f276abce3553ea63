import t from 'tap';
import { SipTargetPolicy, parseSipUri } from '../../src/net/index.js';
import { splitSipUriHeaders } from '../../src/net/sip-uri-headers.js';
import { HOSTILE_SIP_URIS, RESOLVER_HOSTILE } from './support/hostile-sip-uris.js';

const resolve = async (name: string) => {
  const hostile = RESOLVER_HOSTILE[name];
  if (hostile) return [{ address: hostile, family: 4 }];
  if (name === 'sip.example.com') return [{ address: '93.184.216.34', family: 4 }];
  if (name === 'mixed.example.com') return [{ address: '93.184.216.34', family: 4 }, { address: '10.9.9.9', family: 4 }];
  if (name === 'pbx.corp.example') return [{ address: '10.20.0.5', family: 4 }];
  throw new Error('ENOTFOUND');
};
const policy = (o: Partial<ConstructorParameters<typeof SipTargetPolicy>[0]> = {}) =>
  new SipTargetPolicy({ allowLoopback: false, allowedNetworks: [], carrierHosts: () => [], resolve, ...o });

t.test('the hostile corpus is refused statically and when vetted, with and without the dev flag', async (t) => {
  t.ok(HOSTILE_SIP_URIS.length >= 20, `${HOSTILE_SIP_URIS.length} hostile SIP URIs`);
  for (const allowLoopback of [false, true]) {
    const p = policy({ allowLoopback });
    for (const uri of HOSTILE_SIP_URIS) {
      const vet = await p.vet(uri);
      t.notOk(vet.ok, `${uri} refused (dev flag ${allowLoopback})`);
      if (!vet.ok) t.ok(vet.reason.length > 10, `${uri}: ${vet.reason}`);
    }
  }
});

t.test('names are judged by every address they resolve to, and the judged address is pinned', async (t) => {
  const p = policy();
  for (const name of Object.keys(RESOLVER_HOSTILE)) {
    t.ok(p.check(`sip:bob@${name}`).ok, `${name} passes the static check`);
    const vet = await p.vet(`sip:bob@${name}`);
    t.notOk(vet.ok, `${name} refused once resolved`);
    if (!vet.ok) t.match(vet.reason, `${name} -> ${RESOLVER_HOSTILE[name]}`);
  }
  t.notOk((await p.vet('sip:bob@mixed.example.com')).ok, 'one private record taints the name');
  t.notOk((await p.vet('sip:bob@nowhere.example.com')).ok, 'an unresolvable name is refused');
  const ok = await p.vet('sip:bob@sip.example.com');
  t.same(ok.ok && ok.target, { uri: 'sip:bob@sip.example.com', host: 'sip.example.com', address: '93.184.216.34', port: 5060, transport: 'udp', via: 'sip:93.184.216.34:5060;transport=udp' });
  const tls = await p.vet('sips:bob@[2606:4700::1111]');
  t.equal(tls.ok && tls.target.via, 'sip:[2606:4700::1111]:5061;transport=tls');
  const tcp = await p.vet('sip:bob@8.8.8.8:5080;transport=TCP');
  t.equal(tcp.ok && tcp.target.via, 'sip:8.8.8.8:5080;transport=tcp');
});

t.test('the dev flag allows plain loopback only', async (t) => {
  const p = policy({ allowLoopback: true });
  t.ok((await p.vet('sip:bob@127.0.0.1:5099')).ok);
  t.ok((await p.vet('sip:bob@[::1]')).ok);
  t.notOk((await p.vet('sip:bob@loop.example.com')).ok, 'a public-looking name resolving to loopback stays refused');
  t.notOk((await policy().vet('sip:bob@127.0.0.1')).ok, 'without the flag loopback is refused');
});

t.test('operator networks and carriers are exempt', async (t) => {
  const p = policy({ allowedNetworks: ['10.20.0.0/16', 'fd12::/16'], carrierHosts: () => ['192.168.7.7', 'gw.carrier.internal'] });
  t.ok((await p.vet('sip:bob@10.20.3.4')).ok, 'allowed network literal');
  t.ok((await p.vet('sip:bob@pbx.corp.example')).ok, 'a name resolving into an allowed network');
  t.ok((await p.vet('sip:bob@[fd12::9]')).ok);
  t.ok((await p.vet('sip:bob@192.168.7.7')).ok, 'carrier address');
  t.ok(p.check('sip:bob@gw.carrier.internal').ok, 'carrier name, even an internal one');
  t.notOk((await p.vet('sip:bob@10.21.0.1')).ok, 'outside the allowed network');
  t.notOk((await p.vet('sip:bob@192.168.7.8')).ok, 'next to the carrier');
  t.throws(() => policy({ allowedNetworks: ['nonsense'] }));
});

t.test('parsing canonicalises what the resolver would accept', async (t) => {
  const host = (u: string) => { const r = parseSipUri(u); return r.ok ? r.uri.host : r.reason; };
  t.equal(host('sip:a@2130706433'), '127.0.0.1');
  t.equal(host('sip:a@0x7f.1'), '127.0.0.1');
  t.equal(host('sip:a@[::FFFF:7F00:1]'), '::ffff:7f00:1');
  t.equal(host('SIP:a@Example.COM.'), 'example.com');
  t.equal(host('sip:example.com'), 'example.com');
  for (const bad of ['tel:+15550100', 'sip:', 'sip:@example.com', 'sip:a@exa mple.com', 'sip:a@example.com;transport=sctp', 'sip:a@example.com:99999', 'http://example.com']) {
    t.notOk(parseSipUri(bad).ok, `${bad} refused`);
  }
});

t.test('X- headers after ? go with the INVITE; any other header, a control character or a repeat is refused', async (t) => {
  t.same(splitSipUriHeaders('sip:bob@sip.example.com?X-Tenant=acme&X-Case=a%20b'), { ok: true, uri: 'sip:bob@sip.example.com', headers: { 'X-Tenant': 'acme', 'X-Case': 'a b' } });
  t.same(splitSipUriHeaders('sip:bob@sip.example.com'), { ok: true, uri: 'sip:bob@sip.example.com', headers: {} });
  t.ok(parseSipUri('sip:bob@sip.example.com:5070?X-Tenant=acme').ok, 'the policy takes a URI with X- headers');
  const refusals: Array<[string, RegExp]> = [
    ['sip:bob@sip.example.com?Route=%3Csip:10.0.0.1%3E', /only X- headers/],
    ['sip:bob@sip.example.com?X-A=1%0D%0AVia:%20x', /printable ASCII/],
    ['sip:bob@sip.example.com?X-A=%E2%80%AE', /printable ASCII/],
    ['sip:bob@sip.example.com?X-A=%zz', /percent-encoding/],
    ['sip:bob@sip.example.com?X-A=1&x-a=2', /twice/],
    [`sip:bob@sip.example.com?${Array.from({ length: 9 }, (_, i) => `X-H${i}=v`).join('&')}`, /at most 8/],
    [`sip:bob@sip.example.com?X-A=${'v'.repeat(257)}`, /at most 256/],
  ];
  for (const [uri, reason] of refusals) {
    const split = splitSipUriHeaders(uri);
    t.match(split, { ok: false, reason }, uri.slice(0, 80));
    t.match(parseSipUri(uri), { ok: false }, 'and the policy refuses it');
  }
});
