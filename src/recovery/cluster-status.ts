// The control planes sharing this database as an operator sees them (`ringbase cluster status`, GET /operator/cluster
// and the dashboard's operator page): where each listens, when it last beat, whether its peers count it dead or it
// is draining, how many calls it carries. And the one thing an operator does to a node from there: ask it to drain.
import type { Clock } from '../clock.js';
import { deadInstances, type Instance, type InstanceRepo, type Liveness } from './instances.js';
import { peerLiveness } from './index.js';

export type NodeState = 'alive' | 'draining' | 'dead' | 'reconciled';

export interface NodeStatus {
  id: string; host: string; pid: number; address: string | null; started_at: string;
  beat_age_seconds: number; state: NodeState; reconciled_by: string | null; open_calls: number;
}

export interface ClusterStore {
  instances: InstanceRepo;
  calls: { openCountsByOwner(): Promise<Map<string | null, number>> };
}

/** A node's state, judged by `liveness` (a peer's rule). */
function stateOf(i: Instance, liveness: Liveness): NodeState {
  if (i.reconciledBy !== null) return 'reconciled';
  if (deadInstances([i], liveness).length > 0) return 'dead';
  return i.drainingAt !== null ? 'draining' : 'alive';
}

/** Every node the database knows, oldest first, judged as a peer would (`self`: the asking node, '' for none). */
export async function clusterStatus(store: ClusterStore, clock: Clock, self = ''): Promise<NodeStatus[]> {
  const instances = await store.instances.list();
  const open = await store.calls.openCountsByOwner();
  const liveness = peerLiveness(self, clock);
  return instances.map((i) => ({
    id: i.id, host: i.host, pid: i.pid, address: i.address, started_at: i.startedAt,
    beat_age_seconds: Math.max(0, Math.round((clock.now() - Date.parse(i.beatAt)) / 1000)),
    state: stateOf(i, liveness), reconciled_by: i.reconciledBy, open_calls: open.get(i.id) ?? 0,
  }));
}

/**
 * Asks node `id` to drain: it sees the request at its next heartbeat, takes no new calls and stops once its calls
 * have ended. 'not_found' for no such node, 'dead' for one its peers count dead (they finish its calls).
 */
export async function askToDrain(instances: InstanceRepo, clock: Clock, id: string): Promise<'asked' | 'not_found' | 'dead'> {
  const target = await instances.get(id);
  if (!target) return 'not_found';
  const state = stateOf(target, peerLiveness('', clock));
  if (state === 'dead' || state === 'reconciled') return 'dead';
  return (await instances.drain(id)) ? 'asked' : 'not_found';
}
