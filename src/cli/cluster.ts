// `ringbase cluster status`: the control planes sharing this database, as the database knows them (docs/cluster.md):
// where each listens, when it last beat, whether its peers count it dead or it is draining, and how many calls it
// carries. `ringbase node drain ID`: asks one to drain (it sees the request at its next heartbeat).
import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { askToDrain, clusterStatus, type NodeStatus } from '../recovery/cluster-status.js';
import { CliError, type Runner } from './context.js';

const line = (n: NodeStatus) =>
  `${n.id.padEnd(22)} ${n.state.padEnd(10)} ${(n.address ?? '(not listening)').padEnd(28)} ${`${n.host}:${n.pid}`.padEnd(24)} beat ${n.beat_age_seconds} s ago, ${n.open_calls} open call(s)`;

export function clusterCommands(program: Command, run: Runner): void {
  const cluster = program.command('cluster').description('the control planes sharing this database (several nodes on PostgreSQL)');
  cluster.command('status').description('each node: address, last heartbeat, alive or dead, open calls')
    .action(run(async (ctx) => {
      // Judged as a peer would: this command is no node, so none is "self".
      const nodes = await clusterStatus(ctx.store, systemClock());
      ctx.out({ nodes }, nodes.length === 0 ? 'no control plane is running on this database' : nodes.map(line));
    }));

  const node = program.command('node').description('one control plane of several sharing this database');
  node.command('drain').argument('<id>', 'the node, as `ringbase cluster status` lists it')
    .description('the node takes no new calls, lets its calls finish (RINGBASE_DRAIN_SECONDS at most) and stops')
    .action(run(async (ctx, id: string) => {
      const asked = await askToDrain(ctx.store.instances, systemClock(), id);
      if (asked === 'not_found') throw new CliError(`no node ${id} on this database (see ringbase cluster status)`);
      if (asked === 'dead') throw new CliError(`node ${id} is dead: its calls are finished by the others, there is nothing to drain`);
      ctx.out({ id, draining: true }, `${id} asked to drain: it takes no new calls from its next heartbeat (2 s) and stops once its calls have ended`);
    }));
}
