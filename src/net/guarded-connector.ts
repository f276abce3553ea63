import { isIP, type LookupFunction } from 'node:net';
import { promises as dns } from 'node:dns';
import { buildConnector } from 'undici';
import { classifyIp, isPlainLoopback } from './ip-policy.js';
import { normalizeHost } from './url-policy.js';
import { TargetRefusedError } from './errors.js';

export interface ResolvedAddress { address: string; family: number }
/** Name resolution, injectable so tests can point names at private addresses without real DNS. */
export type Resolver = (hostname: string) => Promise<ResolvedAddress[]>;

export interface GuardedConnectorOptions {
  allowLoopback: boolean;
  lookup?: Resolver;
  connectTimeoutMs?: number;
}

export const systemResolve: Resolver = (hostname) => dns.lookup(hostname, { all: true });

/**
 * An undici connector that vets the address each socket is actually opened to. Checking here,
 * rather than only when the URL is accepted, is what defeats DNS rebinding: whatever a name
 * resolves to at connect time is what gets judged.
 */
export function createGuardedConnector(opts: GuardedConnectorOptions): buildConnector.connector {
  const resolve = opts.lookup ?? systemResolve;
  const connect = buildConnector({
    timeout: opts.connectTimeoutMs ?? 5_000,
    lookup: guardedLookup(resolve, opts.allowLoopback),
  });
  return (options, callback) => {
    // Node skips `lookup` entirely for IP literals, so they must be judged here.
    if (isIP(options.hostname)) {
      const refusal = refusalFor(options.hostname, [options.hostname], opts.allowLoopback);
      if (refusal) return callback(refusal, null);
    }
    connect(options, callback);
  };
}

/** A `lookup` for node:net that refuses names resolving to any address the target policy refuses. */
export function guardedLookup(resolve: Resolver, allowLoopback: boolean): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname).then(
      (records) => {
        const wanted = options.family === 4 || options.family === 6 ? records.filter((r) => r.family === options.family) : records;
        if (wanted.length === 0) {
          callback(new TargetRefusedError('unresolvable', `${hostname} did not resolve to any address`), '', 0);
          return;
        }
        const refusal = refusalFor(hostname, wanted.map((r) => r.address), allowLoopback);
        if (refusal) return callback(refusal, '', 0);
        if (options.all) return callback(null, wanted);
        const [first] = wanted as [ResolvedAddress];
        callback(null, first.address, first.family);
      },
      (err: unknown) => {
        const why = err instanceof Error ? err.message : String(err);
        callback(new TargetRefusedError('unresolvable', `${hostname} could not be resolved: ${why}`), '', 0);
      },
    );
  };
}

/**
 * One bad address taints the whole name: with several A/AAAA records the socket layer may pick
 * any of them (Happy Eyeballs), so "mostly public" is not good enough.
 */
export function refusalFor(hostname: string, addresses: string[], allowLoopback: boolean): TargetRefusedError | null {
  const host = normalizeHost(hostname);
  const loopbackName = isIP(host) !== 0 || host === 'localhost';
  for (const address of addresses) {
    if (allowLoopback && loopbackName && isPlainLoopback(address)) continue;
    const verdict = classifyIp(address);
    if (!verdict.allowed) {
      return new TargetRefusedError('address_refused', `${hostname} -> ${address} is refused: ${verdict.reason}`);
    }
  }
  return null;
}
