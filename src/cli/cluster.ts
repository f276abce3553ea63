// `ringbase cluster status`: the control planes sharing this database, as the database knows them (docs/cluster.md):
// where each listens, when it last beat, whether its peers count it dead or it is draining, and how many calls it
// carries. `ringbase node drain ID`: asks one to drain (it sees the request at its next heartbeat).
import type { Command } from 'commander';
import { systemClock } from '../clock.js';
import { deadInstances, peerLiveness, type Instance } from '../recovery/index.js';
import { CliError, type Runner } from './context.js';

type NodeState = 'alive' | 'draining' | 'dead' | 'reconciled';

interface NodeStatus {
  id: string; host: string; pid: number; address: string | null; started_at: string;
  beat_age_seconds: number; state: NodeState; reconciled_by: string | null; open_calls: number;
}

const line = (n: NodeStatus) =>
  `${n.id.padEnd(22)} ${n.state.padEnd(10)} ${(n.address ?? '(not listening)').padEnd(28)} ${`${n.host}:${n.pid}`.padEnd(24)} beat ${n.beat_age_seconds} s ago, ${n.open_calls} open call(s)`;

export function clusterCommands(program: Command, run: Runner): void {
  const cluster = program.command('cluster').description('the control planes sharing this database (several nodes on PostgreSQL)');
  cluster.command('status').description('each node: address, last heartbeat, alive or dead, open calls')
    .action(run(async (ctx) => {
      const clock = systemClock();
      const instances = await ctx.store.instances.list();
      // Judged as a peer would: this command is no node, so none is "self".
      const dead = new Set(deadInstances(instances, peerLiveness('', clock)).map((i) => i.id));
      const open = await ctx.store.calls.openCountsByOwner();
      const state = (i: Instance): NodeState => (i.reconciledBy !== null ? 'reconciled' : dead.has(i.id) ? 'dead' : i.drainingAt !== null ? 'draining' : 'alive');
      const nodes: NodeStatus[] = instances.map((i) => ({
        id: i.id, host: i.host, pid: i.pid, address: i.address, started_at: i.startedAt,
        beat_age_seconds: Math.max(0, Math.round((clock.now() - Date.parse(i.beatAt)) / 1000)),
        state: state(i), reconciled_by: i.reconciledBy, open_calls: open.get(i.id) ?? 0,
      }));
      ctx.out({ nodes }, nodes.length === 0 ? 'no control plane is running on this database' : nodes.map(line));
    }));

  const node = program.command('node').description('one control plane of several sharing this database');
  node.command('drain').argument('<id>', 'the node, as `ringbase cluster status` lists it')
    .description('the node takes no new calls, lets its calls finish (RINGBASE_DRAIN_SECONDS at most) and stops')
    .action(run(async (ctx, id: string) => {
      const target = await ctx.store.instances.get(id);
      if (!target) throw new CliError(`no node ${id} on this database (see ringbase cluster status)`);
      if (deadInstances([target], peerLiveness('', systemClock())).length > 0) throw new CliError(`node ${id} is dead: its calls are finished by the others, there is nothing to drain`);
      await ctx.store.instances.drain(id);
      ctx.out({ id, draining: true }, `${id} asked to drain: it takes no new calls from its next heartbeat (2 s) and stops once its calls have ended`);
    }));
}
