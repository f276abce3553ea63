// Shared fixtures for the net tests (tap lists this file as "no tests found"; that is expected).
import http from 'node:http';
import net from 'node:net';
import tls from 'node:tls';
import type { AddressInfo } from 'node:net';

export interface LocalServer {
  origin: string;
  port: number;
  connections: () => number;
  close: () => Promise<void>;
}

/** An HTTP server bound to 127.0.0.1 only; the tests never talk to any other address. */
export async function startLocalServer(handler: http.RequestListener): Promise<LocalServer> {
  const server = http.createServer(handler);
  let connections = 0;
  server.on('connection', () => connections++);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    port,
    connections: () => connections,
    close: async () => {
      // Hung requests (timeout tests) would otherwise keep close() waiting forever.
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

type LookupCallback = (err: Error | null, address?: unknown, family?: number) => void;
type ConnectOptions = { host?: string; lookup?: (h: string, o: object, cb: LookupCallback) => void };

/**
 * Safety net independent of the code under test: every socket undici opens goes through
 * net.connect / tls.connect, so we check the address handed to the socket layer there. A policy
 * bug then fails the test (with the connect aborted) instead of sending a packet off-host.
 */
export function installLoopbackTripwire(onViolation: (what: string) => void): () => void {
  const originals = { net: net.connect, tls: tls.connect };
  const isLoopback = (a: string) => a.startsWith('127.') || a === '::1';
  const guard = (options: ConnectOptions): ConnectOptions => {
    const host = options.host ?? '';
    if (net.isIP(host) && !isLoopback(host)) {
      onViolation(`connect to ${host}`);
      return { ...options, host: '127.0.0.1', lookup: undefined };
    }
    const lookup = options.lookup;
    if (!lookup) return options;
    return {
      ...options,
      lookup: (hostname, opts, cb) =>
        lookup(hostname, opts, (err, address, family) => {
          const list = Array.isArray(address) ? address.map((a: { address: string }) => a.address) : [String(address)];
          const bad = err ? undefined : list.find((a) => !isLoopback(a));
          if (bad === undefined) return cb(err, address, family);
          onViolation(`connect to ${hostname} -> ${bad}`);
          cb(new Error('tripwire: non-loopback connect blocked'));
        }),
    };
  };
  const patchable = (module: { connect: unknown }, original: (...a: unknown[]) => unknown) => {
    module.connect = (options: ConnectOptions, ...rest: unknown[]) => original(guard(options), ...rest);
  };
  patchable(net, originals.net as (...a: unknown[]) => unknown);
  patchable(tls, originals.tls as (...a: unknown[]) => unknown);
  return () => {
    net.connect = originals.net;
    tls.connect = originals.tls;
  };
}

/** A resolver built from a fixed table; names not in it fail like NXDOMAIN, so no real DNS happens. */
export function tableLookup(table: Record<string, string[]>) {
  return async (hostname: string) => {
    const addresses = table[hostname.toLowerCase()];
    if (!addresses) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return addresses.map((address) => ({ address, family: net.isIP(address) }));
  };
}
