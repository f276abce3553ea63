import { isIP } from 'node:net';
import { promises as dns } from 'node:dns';
import { classifyIp, isPlainLoopback, cidrContains, parseCidr, type Cidr } from './ip-policy.js';
import { isInternalName } from './url-policy.js';
import { parseSipUri, type SipTransport, type SipUriParts } from './sip-uri.js';
import type { Resolver } from './guarded-connector.js';

export interface SipPolicyOptions {
  /** Dev/test only: plain loopback addresses (127.0.0.0/8, ::1 written directly) are allowed. */
  allowLoopback: boolean;
  /** Operator-allowed networks (RINGBASE_SIP_ALLOWED_NETWORKS): PBXs and gateways on private addresses. */
  allowedNetworks: readonly string[];
  /** Carrier hosts (names or addresses), asked on every check so carriers added at run time count. */
  carrierHosts: () => readonly string[];
  resolve?: Resolver;
}

/** A destination that passed: the INVITE goes to `via`, the address that was judged, never re-resolved. */
export interface VettedSipTarget { uri: string; host: string; address: string; port: number; transport: SipTransport; via: string }

/** `unresolvable`: nothing was judged refused, the name just gave no address (yet). */
export type SipVet = { ok: true; target: VettedSipTarget } | { ok: false; reason: string; unresolvable?: true };
export type SipStaticCheck = { ok: true; uri: SipUriParts } | { ok: false; reason: string };

const systemResolve: Resolver = (hostname) => dns.lookup(hostname, { all: true });

/**
 * The target policy for SIP destinations: the address rules of customer URLs, applied to the host of a
 * sip:/sips: URI and to every address its name resolves to, with the operator's carriers and allowed
 * networks exempt. `vet` returns the address to send to, so DNS cannot change the answer after the check.
 */
export class SipTargetPolicy {
  readonly #networks: Cidr[];
  readonly #resolve: Resolver;

  constructor(private readonly opts: SipPolicyOptions) {
    this.#networks = opts.allowedNetworks.map((n) => {
      const cidr = parseCidr(n);
      if (!cidr) throw new Error(`not a network: ${n}`);
      return cidr;
    });
    this.#resolve = opts.resolve ?? systemResolve;
  }

  /** The checks that need no DNS: syntax, literal addresses, internal names. */
  check(raw: string): SipStaticCheck {
    const parsed = parseSipUri(raw);
    if (!parsed.ok) return parsed;
    const { host, writtenHost } = parsed.uri;
    if (this.#isCarrier(host)) return parsed;
    if (isIP(host)) {
      const refusal = this.#refusal(host, writtenHost);
      return refusal ? { ok: false, reason: refusal } : parsed;
    }
    if (isInternalName(host) && !(this.opts.allowLoopback && host === 'localhost')) {
      return { ok: false, reason: `${host} is an internal host name` };
    }
    return parsed;
  }

  /** Every check, names resolved: one refused address among a name's records refuses the name. */
  async vet(raw: string): Promise<SipVet> {
    const checked = this.check(raw);
    if (!checked.ok) return checked;
    const { host, scheme, port, transport } = checked.uri;
    // Literal addresses were judged by check(); names are judged here on what they resolve to.
    let addresses: string[];
    if (isIP(host)) addresses = [host];
    else {
      try {
        addresses = (await this.#resolve(host)).map((r) => r.address);
      } catch (err) {
        return { ok: false, reason: `${host} could not be resolved: ${(err as Error).message}`, unresolvable: true };
      }
      if (addresses.length === 0) return { ok: false, reason: `${host} did not resolve to any address`, unresolvable: true };
      if (!this.#isCarrier(host)) {
        for (const address of addresses) {
          const refusal = this.#refusal(address, host === 'localhost' ? address : host);
          if (refusal) return { ok: false, reason: refusal };
        }
      }
    }
    const address = addresses[0]!;
    const chosen: SipTransport = transport ?? (scheme === 'sips' ? 'tls' : 'udp');
    const chosenPort = port ?? (scheme === 'sips' ? 5061 : 5060);
    const hostPart = isIP(address) === 6 ? `[${address}]` : address;
    return { ok: true, target: { uri: raw, host, address, port: chosenPort, transport: chosen, via: `sip:${hostPart}:${chosenPort};transport=${chosen}` } };
  }

  /** Why `address` (reached through `spelledAs`) is refused, or null. */
  #refusal(address: string, spelledAs: string): string | null {
    if (this.#inAllowedNetwork(address)) return null;
    // Loopback under the dev flag only when written plainly: a mapped or tunnelled spelling is an attack.
    if (this.opts.allowLoopback && isPlainLoopback(address) && (spelledAs === address || spelledAs === 'localhost')) return null;
    const verdict = classifyIp(address);
    if (verdict.allowed) return null;
    return spelledAs === address ? `${address} is refused: ${verdict.reason}` : `${spelledAs} -> ${address} is refused: ${verdict.reason}`;
  }

  #inAllowedNetwork(address: string): boolean {
    return this.#networks.some((n) => cidrContains(n, address));
  }

  #isCarrier(host: string): boolean {
    return this.opts.carrierHosts().some((c) => {
      const parsed = parseSipUri(`sip:${c}`);
      return parsed.ok && parsed.uri.host === host;
    });
  }
}
