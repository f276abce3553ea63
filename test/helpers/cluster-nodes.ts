// Control planes as processes of their own (so a test can SIGKILL one) sharing one PostgreSQL database and one master
// key, as the nodes of a cluster do (docs/cluster.md), each with its own data dir; each is returned once its
// /healthz says it is ready (database reachable, engine connected), with the instance id it answers as.
import { randomBytes } from 'node:crypto';
import { tempDir } from './harness.js';
import { startServerProcess, type ServerProcess } from './server-process.js';
import { until } from './waits.js';

type Tap = Parameters<typeof tempDir>[0];

export interface ClusterNode { id: string; url: string; server: ServerProcess }

/** How long a node may take from its HTTP listener to a connected engine (drachtio routes, FreeSWITCH sockets). */
const READY_MS = 30_000;

/** What every node of one cluster shares: the database and the master key (nodes started later join with it). */
export function clusterEnv(databaseUrl: string): Record<string, string> {
  return { RINGBASE_DATABASE_URL: databaseUrl, RINGBASE_MASTER_KEY: randomBytes(32).toString('hex') };
}

/** `env` holds clusterEnv's variables and the engines'; each node adds a data dir of its own. */
export async function startClusterNodes(t: Tap, count: number, env: Record<string, string>): Promise<ClusterNode[]> {
  const nodes = await Promise.all(Array.from({ length: count }, async () => {
    const server = await startServerProcess({ ...env, RINGBASE_DATA_DIR: tempDir(t) }, t);
    let id = '';
    await until(() => `node ${server.url} ready:\n${server.output().slice(-2000)}`, READY_MS, async () => {
      const res = await fetch(`${server.url}/healthz`).catch(() => null);
      if (res?.status !== 200) return false;
      id = ((await res.json()) as { node: string }).node;
      return true;
    }, 50);
    return { id, url: server.url, server };
  }));
  return nodes;
}
