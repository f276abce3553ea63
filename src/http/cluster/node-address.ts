// The address a control plane advertises to its peers (instances.address): RINGBASE_NODE_URL when set, else the
// listener's own host and port, with an any-address listener (0.0.0.0, ::) reached on loopback, as on one machine.
import type { AddressInfo } from 'node:net';
import type { Config } from '../../config.js';

const ANY = new Set(['0.0.0.0', '::', '']);

export function nodeAddress(config: Pick<Config, 'nodeUrl' | 'host'>, listening: AddressInfo | string | null, https: boolean): string {
  if (config.nodeUrl) return config.nodeUrl;
  const port = typeof listening === 'object' && listening ? listening.port : 0;
  const host = ANY.has(config.host) ? '127.0.0.1' : config.host;
  return `${https ? 'https' : 'http'}://${host.includes(':') ? `[${host}]` : host}:${port}`;
}
