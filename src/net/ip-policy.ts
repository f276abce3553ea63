import { parseIp, formatIpv4, type IpBytes } from './ip-address.js';
import { parseCidr, cidrContains, type Cidr } from './cidr.js';

export { parseCidr, cidrContains, type Cidr } from './cidr.js';

export type IpCategory =
  | 'loopback'
  | 'private'
  | 'link-local'
  | 'cgnat'
  | 'multicast'
  | 'unspecified'
  | 'broadcast'
  | 'reserved'
  | 'benchmarking'
  | 'documentation'
  | 'metadata'
  | 'teredo'
  | 'invalid';

export type IpVerdict =
  | { allowed: true }
  | { allowed: false; category: IpCategory; reason: string };

/** A range that is refused outright. */
interface RefusedRange { cidr: string; category: IpCategory; reason: string }
/** An IPv6 range that carries an IPv4 address the packets actually reach; judged by that address. */
interface EmbeddingRange { cidr: string; embedsIpv4At: number; via: string }
type Rule = RefusedRange | EmbeddingRange;

// Order matters: the first match wins, so single hosts precede the blocks containing them.
const IPV4_RULES: Rule[] = [
  { cidr: '255.255.255.255/32', category: 'broadcast', reason: 'limited broadcast address' },
  { cidr: '169.254.169.254/32', category: 'metadata', reason: 'cloud instance metadata endpoint' },
  { cidr: '100.100.100.200/32', category: 'metadata', reason: 'Alibaba Cloud metadata endpoint' },
  { cidr: '0.0.0.0/8', category: 'unspecified', reason: '"this network" / unspecified address' },
  { cidr: '10.0.0.0/8', category: 'private', reason: 'private network (RFC 1918)' },
  { cidr: '100.64.0.0/10', category: 'cgnat', reason: 'carrier-grade NAT shared space (RFC 6598)' },
  { cidr: '127.0.0.0/8', category: 'loopback', reason: 'loopback address' },
  { cidr: '169.254.0.0/16', category: 'link-local', reason: 'link-local address' },
  { cidr: '172.16.0.0/12', category: 'private', reason: 'private network (RFC 1918)' },
  { cidr: '192.0.0.0/24', category: 'reserved', reason: 'IETF protocol assignments' },
  { cidr: '192.0.2.0/24', category: 'documentation', reason: 'documentation range (TEST-NET-1)' },
  { cidr: '192.88.99.0/24', category: 'reserved', reason: 'deprecated 6to4 relay anycast' },
  { cidr: '192.168.0.0/16', category: 'private', reason: 'private network (RFC 1918)' },
  { cidr: '198.18.0.0/15', category: 'benchmarking', reason: 'benchmarking range (RFC 2544)' },
  { cidr: '198.51.100.0/24', category: 'documentation', reason: 'documentation range (TEST-NET-2)' },
  { cidr: '203.0.113.0/24', category: 'documentation', reason: 'documentation range (TEST-NET-3)' },
  { cidr: '224.0.0.0/4', category: 'multicast', reason: 'multicast address' },
  { cidr: '240.0.0.0/4', category: 'reserved', reason: 'reserved for future use' },
];

const IPV6_RULES: Rule[] = [
  { cidr: '::/128', category: 'unspecified', reason: 'unspecified address' },
  { cidr: '::1/128', category: 'loopback', reason: 'loopback address' },
  { cidr: 'fd00:ec2::254/128', category: 'metadata', reason: 'AWS instance metadata endpoint (IPv6)' },
  { cidr: '::ffff:0:0/96', embedsIpv4At: 12, via: 'IPv4-mapped IPv6' },
  { cidr: '::/96', embedsIpv4At: 12, via: 'IPv4-compatible IPv6' },
  { cidr: '64:ff9b::/96', embedsIpv4At: 12, via: 'NAT64' },
  { cidr: '2002::/16', embedsIpv4At: 2, via: '6to4' },
  { cidr: '64:ff9b:1::/48', category: 'private', reason: 'local-use NAT64 prefix' },
  { cidr: '100::/64', category: 'reserved', reason: 'discard-only prefix' },
  // Teredo tunnels to an address we cannot judge up front, so the whole prefix is refused.
  { cidr: '2001::/32', category: 'teredo', reason: 'Teredo tunnel prefix' },
  { cidr: '2001:2::/48', category: 'benchmarking', reason: 'benchmarking range' },
  { cidr: '2001:db8::/32', category: 'documentation', reason: 'documentation range' },
  { cidr: '2001::/23', category: 'reserved', reason: 'IETF protocol assignments' },
  { cidr: '3fff::/20', category: 'documentation', reason: 'documentation range' },
  { cidr: 'fc00::/7', category: 'private', reason: 'unique local address' },
  { cidr: 'fe80::/10', category: 'link-local', reason: 'link-local address' },
  { cidr: 'fec0::/10', category: 'private', reason: 'deprecated site-local address' },
  { cidr: 'ff00::/8', category: 'multicast', reason: 'multicast address' },
];

// Only 2000::/3 is allocated for global unicast; refusing the rest avoids chasing every new special range.
const IPV6_GLOBAL_UNICAST = mustParse('2000::/3');

type CompiledRule = Rule & { network: Cidr };
const compile = (rules: Rule[]): CompiledRule[] => rules.map((rule) => ({ ...rule, network: mustParse(rule.cidr) }));
const COMPILED_V4 = compile(IPV4_RULES);
const COMPILED_V6 = compile(IPV6_RULES);

/** Decides whether an outbound connection to `address` may be made. Unparseable input is refused. */
export function classifyIp(address: string): IpVerdict {
  const ip = parseIp(address);
  if (!ip) return { allowed: false, category: 'invalid', reason: `not an IP address: ${JSON.stringify(address)}` };
  return classifyBytes(ip);
}

/**
 * True only for 127.0.0.0/8 and ::1 written directly: the dev/test loopback exemption should not
 * extend to tunnelled or mapped spellings, which only an attacker would use.
 */
export function isPlainLoopback(address: string): boolean {
  const ip = parseIp(address);
  if (!ip) return false;
  return ip.family === 4 ? ip.bytes[0] === 127 : ip.bytes.every((b, i) => b === (i === 15 ? 1 : 0));
}

function classifyBytes(ip: IpBytes): IpVerdict {
  const rules = ip.family === 4 ? COMPILED_V4 : COMPILED_V6;
  const rule = rules.find((r) => cidrContains(r.network, ip));
  if (rule && 'embedsIpv4At' in rule) return classifyEmbedded(ip, rule);
  if (rule) return { allowed: false, category: rule.category, reason: rule.reason };
  if (ip.family === 6 && !cidrContains(IPV6_GLOBAL_UNICAST, ip)) {
    return { allowed: false, category: 'reserved', reason: 'outside IPv6 global unicast space' };
  }
  return { allowed: true };
}

function classifyEmbedded(ip: IpBytes, rule: EmbeddingRange): IpVerdict {
  const inner = ip.bytes.slice(rule.embedsIpv4At, rule.embedsIpv4At + 4);
  const verdict = classifyBytes({ family: 4, bytes: inner });
  if (verdict.allowed) return verdict;
  return { ...verdict, reason: `${verdict.reason} (${formatIpv4(inner)} via ${rule.via})` };
}

function mustParse(cidr: string): Cidr {
  const parsed = parseCidr(cidr);
  if (!parsed) throw new Error(`bad built-in CIDR ${cidr}`);
  return parsed;
}
