// Who counts as "one source" for per-address throttles. An IPv4 client is its address (also when Node reports
// it IPv4-mapped, ::ffff:a.b.c.d); an IPv6 client is its /64, because one subscriber is routinely handed a
// whole /64 and could otherwise step through 2^64 addresses to escape any per-address limit.
import { parseIp } from './ip-address.js';

const MAPPED_PREFIX = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff];

// Every API request asks for its client's bucket, and the clients of one server are few: answers are kept.
const known = new Map<string, string>();
const KNOWN_LIMIT = 4096;

export function addressBucket(ip: string): string {
  let bucket = known.get(ip);
  if (bucket === undefined) {
    bucket = bucketOf(ip);
    if (known.size >= KNOWN_LIMIT) known.clear();
    known.set(ip, bucket);
  }
  return bucket;
}

function bucketOf(ip: string): string {
  const parsed = parseIp(ip);
  if (!parsed) return ip;
  const { family, bytes } = parsed;
  if (family === 4) return Array.from(bytes).join('.');
  if (MAPPED_PREFIX.every((b, i) => bytes[i] === b)) return Array.from(bytes.slice(12)).join('.');
  const groups: string[] = [];
  for (let i = 0; i < 8; i += 2) groups.push(((bytes[i]! << 8) | bytes[i + 1]!).toString(16));
  return `${groups.join(':')}::/64`;
}
