import type { FastifyInstance } from 'fastify';
import type { Clock } from '../../clock.js';
import { askToDrain, clusterStatus, type ClusterStore } from '../../recovery/cluster-status.js';
import { ApiError } from '../errors.js';

export interface ClusterRouteDeps { store: ClusterStore; clock: Clock; self: string }

/**
 * The control planes sharing this database (as `ringbase cluster status` and `ringbase node drain`), inside the
 * operator scope (token-authenticated). `node` says which one answered.
 */
export function clusterRoutes(app: FastifyInstance, deps: ClusterRouteDeps): void {
  app.get('/operator/cluster', { schema: { hide: true } }, async () => ({ node: deps.self, nodes: await clusterStatus(deps.store, deps.clock, deps.self) }));
  app.post<{ Params: { id: string } }>('/operator/cluster/nodes/:id/drain', { schema: { hide: true } }, async (req, reply) => {
    const asked = await askToDrain(deps.store.instances, deps.clock, req.params.id);
    if (asked === 'not_found') throw new ApiError(404, 'node_not_found', `No node ${req.params.id} is on this database (GET /operator/cluster lists them).`);
    if (asked === 'dead') throw new ApiError(409, 'node_dead', `Node ${req.params.id} is dead: the others finish its calls; there is nothing to drain.`);
    return reply.status(202).send({ id: req.params.id, draining: true });
  });
}
