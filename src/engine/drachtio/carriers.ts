// Carriers as the engine sees them: who DID calls come from (by source address or range), and where calls to numbers
// go (routes by prefix across carriers, gateways within one). The list is read from the store's cache on every call,
// so carriers changed with the operator CLI count without a restart.
import { cidrContains, parseCidr } from '../../net/cidr.js';
import { gatewayAddress, gatewayKey, type CarrierGateway, type CarrierSettings } from '../../store/carriers.js';

/** A carrier with its password opened (the engine answers digest challenges with it). */
export interface CarrierEntry extends Omit<CarrierSettings, 'auth'> {
  id: number;
  name: string;
  auth: { username: string; password: string; realm: string | null } | null;
}

export interface CarrierDirectory { list(): Promise<readonly CarrierEntry[]> }

export const NO_CARRIERS: CarrierDirectory = { list: async () => [] };

/**
 * The carrier a request came from: one of its sources holds the address (and names the port, or any port). Of
 * several, the most specific source wins (a port named, then the narrower range), then the carrier added first.
 */
export async function carrierAt(dir: CarrierDirectory, address: string, port: number): Promise<CarrierEntry | undefined> {
  let best: { carrier: CarrierEntry; score: number } | undefined;
  for (const carrier of await dir.list()) {
    for (const source of carrier.sources) {
      const network = source.port === null || source.port === port ? parseCidr(source.network) : null;
      if (!network || !cidrContains(network, address)) continue;
      const score = (source.port === null ? 0 : 1000) + network.prefix;
      if (!best || score > best.score) best = { carrier, score };
    }
  }
  return best?.carrier;
}

/** One gateway of one carrier, in the order a call to a number tries them. */
export interface GatewayAttempt { carrier: CarrierEntry; gateway: CarrierGateway }


/**
 * Orders items by `rank` (lower first) and, among equal ranks, by weighted chance: an item of weight 3 is three times
 * as likely to come first as one of weight 1 (RFC 2782's selection), so traffic spreads as the weights say.
 */
function byRankThenWeight<T>(items: T[], rank: (x: T) => number, weight: (x: T) => number, random: () => number): T[] {
  const out: T[] = [];
  const ranks = [...new Set(items.map(rank))].sort((a, b) => a - b);
  for (const r of ranks) {
    const pool = items.filter((x) => rank(x) === r);
    while (pool.length > 0) {
      const total = pool.reduce((sum, x) => sum + Math.max(weight(x), 0), 0);
      let pick = random() * total;
      let i = total > 0 ? pool.findIndex((x) => (pick -= Math.max(weight(x), 0)) < 0) : 0;
      if (i < 0) i = pool.length - 1;
      out.push(pool.splice(i, 1)[0]!);
    }
  }
  return out;
}

/**
 * Every gateway a call to `number` may try, in order: carriers by their routes (longest matching prefix, then lower
 * priority, then weight), each carrier once, and within a carrier its gateways (lower priority, then weight). A
 * gateway the health checks find down is left out.
 */
export function attemptsFor(carriers: readonly CarrierEntry[], number: string, isUp: (key: string) => boolean = () => true, random = Math.random): GatewayAttempt[] {
  const matches = carriers.flatMap((carrier) => carrier.routes.filter((r) => number.startsWith(r.prefix)).map((route) => ({ carrier, route })));
  const ordered = byRankThenWeight(matches, (m) => -m.route.prefix.length * 1e6 + m.route.priority, (m) => m.route.weight, random);
  const seen = new Set<CarrierEntry>();
  const out: GatewayAttempt[] = [];
  for (const { carrier } of ordered) {
    if (seen.has(carrier)) continue;
    seen.add(carrier);
    for (const gateway of byRankThenWeight([...carrier.gateways], (g) => g.priority, (g) => g.weight, random)) {
      if (isUp(gatewayKey(carrier.name, gateway))) out.push({ carrier, gateway });
    }
  }
  return out;
}

/** A SIP URI's transport parameter: named unless UDP, SIP's default. */
export const transportParam = (transport: CarrierGateway['transport']): string => (transport === 'udp' ? '' : `;transport=${transport}`);

/** A request URI at a gateway (or registrar): for `user` there, or the host itself (OPTIONS, REGISTER). */
export function gatewayUri(g: Pick<CarrierGateway, 'host' | 'port' | 'transport'>, user?: string): string {
  return `sip:${user === undefined ? '' : `${user}@`}${gatewayAddress(g)}${transportParam(g.transport)}`;
}
