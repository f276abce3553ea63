import t from 'tap';
import fc from 'fast-check';
import { classifyIp, isPlainLoopback, parseCidr, cidrContains, type IpCategory } from '../../src/net/ip-policy.js';
import { parseIp } from '../../src/net/ip-address.js';

const refused: Array<[string, IpCategory]> = [
  ['127.0.0.1', 'loopback'],
  ['127.255.255.254', 'loopback'],
  ['::1', 'loopback'],
  ['10.1.2.3', 'private'],
  ['172.16.0.1', 'private'],
  ['172.31.255.255', 'private'],
  ['192.168.0.1', 'private'],
  ['fc00::1', 'private'],
  ['fdff:ffff::1', 'private'],
  ['169.254.1.1', 'link-local'],
  ['fe80::1', 'link-local'],
  ['fe80::1%eth0', 'link-local'],
  ['febf::1', 'link-local'],
  ['100.64.0.1', 'cgnat'],
  ['100.127.255.255', 'cgnat'],
  ['224.0.0.1', 'multicast'],
  ['239.255.255.255', 'multicast'],
  ['ff02::1', 'multicast'],
  ['0.0.0.0', 'unspecified'],
  ['0.1.2.3', 'unspecified'],
  ['::', 'unspecified'],
  ['255.255.255.255', 'broadcast'],
  ['240.0.0.1', 'reserved'],
  ['198.18.0.1', 'benchmarking'],
  ['198.19.255.255', 'benchmarking'],
  ['192.0.2.1', 'documentation'],
  ['2001:db8::1', 'documentation'],
  ['169.254.169.254', 'metadata'],
  ['100.100.100.200', 'metadata'],
  ['fd00:ec2::254', 'metadata'],
  ['::ffff:127.0.0.1', 'loopback'],
  ['::ffff:7f00:1', 'loopback'],
  ['::ffff:169.254.169.254', 'metadata'],
  ['::127.0.0.1', 'loopback'],
  ['64:ff9b::10.0.0.1', 'private'],
  ['64:ff9b::a9fe:a9fe', 'metadata'],
  ['2002:c0a8:0101::1', 'private'],
  ['2001::1', 'teredo'],
  ['2001:0:4136:e378::1', 'teredo'],
  ['::ffff:0:7f00:1', 'reserved'],
  ['100::1', 'reserved'],
  ['not-an-ip', 'invalid'],
  ['1.2.3', 'invalid'],
  ['', 'invalid'],
];

for (const [address, category] of refused) {
  t.test(`refuses ${address || '(empty)'} as ${category}`, async (t) => {
    const verdict = classifyIp(address);
    t.equal(verdict.allowed, false);
    if (!verdict.allowed) {
      t.equal(verdict.category, category);
      t.ok(verdict.reason.length > 0);
    }
  });
}

const allowed = [
  '8.8.8.8', '1.1.1.1', '93.184.216.34', '11.0.0.1', '100.63.255.255', '100.128.0.1', '172.15.255.255',
  '172.32.0.1', '169.253.255.255', '192.167.255.255', '198.20.0.1', '223.255.255.255',
  '2606:4700:4700::1111', '2a00:1450:4001::200e', '::ffff:8.8.8.8', '64:ff9b::808:808', '2002:808:808::1',
];
t.test('allows public addresses, including tunnelled forms of public IPv4', async (t) => {
  for (const address of allowed) t.same(classifyIp(address), { allowed: true }, address);
});

t.test('embedded IPv4 verdicts say which address and tunnel were involved', async (t) => {
  const verdict = classifyIp('::ffff:7f00:1');
  t.match(verdict, { allowed: false, reason: /127\.0\.0\.1 via IPv4-mapped/ });
});

t.test('isPlainLoopback accepts only direct 127/8 and ::1', async (t) => {
  for (const a of ['127.0.0.1', '127.9.9.9', '::1']) t.ok(isPlainLoopback(a), a);
  for (const a of ['::ffff:127.0.0.1', '64:ff9b::7f00:1', '10.0.0.1', 'localhost', '::']) t.notOk(isPlainLoopback(a), a);
});

t.test('parseIp expands IPv6 including embedded dotted quads', async (t) => {
  t.same(parseIp('::ffff:1.2.3.4'), parseIp('::ffff:102:304'));
  t.same(Array.from(parseIp('1::2')?.bytes ?? []), [0, 1, ...new Array(12).fill(0), 0, 2]);
  t.equal(parseIp('1.2.3.256'), null);
});

t.test('parseCidr', async (t) => {
  t.match(parseCidr('10.0.0.0/8'), { family: 4, prefix: 8 });
  t.match(parseCidr('2001:db8::/32'), { family: 6, prefix: 32 });
  t.match(parseCidr('203.0.113.7'), { family: 4, prefix: 32 }, 'bare address is a host route');
  t.same(Array.from(parseCidr('10.9.8.7/8')?.network ?? []), [10, 0, 0, 0], 'host bits are cleared');
  for (const bad of ['10.0.0.0/33', '::/129', '10.0.0.0/', '10.0.0.0/x', 'example.com/8', '10.0.0.0/-1', '']) {
    t.equal(parseCidr(bad), null, bad);
  }
});

t.test('cidrContains', async (t) => {
  t.ok(cidrContains('10.0.0.0/8', '10.200.0.1'));
  t.notOk(cidrContains('10.0.0.0/8', '11.0.0.1'));
  t.ok(cidrContains('172.16.0.0/12', '172.31.255.255'));
  t.notOk(cidrContains('172.16.0.0/12', '172.32.0.0'));
  t.ok(cidrContains('0.0.0.0/0', '203.0.113.9'));
  t.ok(cidrContains('2001:db8::/32', '2001:db8:ffff::1'));
  t.notOk(cidrContains('2001:db8::/32', '2001:db9::1'));
  t.ok(cidrContains('203.0.113.0/24', '::ffff:203.0.113.5'), 'dual-stack peers match IPv4 lists');
  t.notOk(cidrContains('::ffff:0:0/96', '203.0.113.5'), 'but IPv4 does not match IPv6 lists');
  t.notOk(cidrContains('10.0.0.0/8', '::a00:1'), 'IPv4-compatible form is not treated as IPv4');
  t.notOk(cidrContains('not-a-cidr', '10.0.0.1'));
  t.notOk(cidrContains('10.0.0.0/8', 'not-an-ip'));
});

const ipv4 = fc.tuple(fc.nat(255), fc.nat(255), fc.nat(255), fc.nat(255)).map((b) => b.join('.'));

t.test('property: an address is inside every network built from it', async (t) => {
  fc.assert(fc.property(ipv4, fc.nat(32), (ip, prefix) => cidrContains(`${ip}/${prefix}`, ip)), { numRuns: 500 });
  fc.assert(fc.property(fc.ipV6(), fc.nat(128), (ip, prefix) => cidrContains(`${ip}/${prefix}`, ip)), { numRuns: 500 });
  t.pass();
});

t.test('property: flipping a bit inside the prefix leaves the network', async (t) => {
  fc.assert(
    fc.property(ipv4, fc.integer({ min: 1, max: 32 }), fc.nat(31), (ip, prefix, bitSeed) => {
      const bit = bitSeed % prefix;
      const bytes = ip.split('.').map(Number);
      bytes[bit >> 3]! ^= 0x80 >> (bit & 7);
      return !cidrContains(`${ip}/${prefix}`, bytes.join('.'));
    }),
    { numRuns: 500 },
  );
  t.pass();
});

t.test('property: classifyIp never throws and always gives a category when refusing', async (t) => {
  fc.assert(
    fc.property(fc.oneof(ipv4, fc.ipV6(), fc.string()), (text) => {
      const verdict = classifyIp(text);
      return verdict.allowed || verdict.category.length > 0;
    }),
    { numRuns: 500 },
  );
  t.pass();
});
