import { Counter, Gauge, type Registry } from 'prom-client';
import type { Store } from '../repositories.js';
import type { AcdCount, AcdStats } from '../acd/stats.js';
import type { MetricsRegistries } from './metrics.js';

interface QueueRow { sid: string; waiting: number; first_at: number | null }
interface AgentRow { sid: string; activity: string; n: number }

/**
 * The ACD read at scrape time. Per queue (the per-account registry: queue sids name accounts' resources): callers
 * waiting, the longest wait, its agents (not offline) by activity, and offers, answers and abandons counted since
 * start. Open to anyone: the same summed over every queue of every account, each agent counted once.
 */
export function installAcdMetrics(registries: MetricsRegistries, store: Store, stats: AcdStats, now: () => number): void {
  // Filled while the scrape waits (prom-client awaits a collect that returns a promise); reset only once the rows are in.
  const gauge = (registry: Registry, name: string, help: string, labelNames: string[], fill: (g: Gauge) => Promise<void>) =>
    new Gauge({ name, help, labelNames, registers: [registry], async collect() { await fill(this); } });
  const { sql } = store;
  const queues = () => sql.all<QueueRow>(`SELECT q.sid, COUNT(m.call_sid) AS waiting, MIN(m.enqueued_at) AS first_at
    FROM acd_queues q LEFT JOIN acd_members m ON m.queue_id = q.id GROUP BY q.id, q.sid`);
  const { perAccount, open } = registries;
  gauge(perAccount, 'ringbase_acd_queue_waiting', 'Callers waiting in the queue', ['queue'], async (g) => {
    const rows = await queues();
    g.reset();
    for (const q of rows) g.set({ queue: q.sid }, q.waiting);
  });
  gauge(perAccount, 'ringbase_acd_queue_longest_wait_seconds', 'How long the first caller in line has waited (0 when none)', ['queue'], async (g) => {
    const rows = await queues();
    g.reset();
    for (const q of rows) g.set({ queue: q.sid }, q.first_at === null ? 0 : Math.max(0, Math.floor((now() - q.first_at) / 1000)));
  });
  gauge(perAccount, 'ringbase_acd_agents', "The queue's agents that are not offline, by activity", ['queue', 'activity'], async (g) => {
    const rows = await sql.all<AgentRow>(`SELECT q.sid, a.activity, COUNT(*) AS n FROM acd_agents a JOIN acd_agent_queues aq ON aq.agent_id = a.id
      JOIN acd_queues q ON q.id = aq.queue_id WHERE a.status <> 'offline' GROUP BY q.id, q.sid, a.activity`);
    g.reset();
    for (const r of rows) g.set({ queue: r.sid, activity: r.activity }, r.n);
  });
  gauge(open, 'ringbase_acd_callers_waiting', 'Callers waiting in any queue', [], async (g) => {
    const row = await sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM acd_members');
    g.reset();
    g.set(row!.n);
  });
  gauge(open, 'ringbase_acd_agents_signed_in', 'Agents that are not offline, by activity (each agent once)', ['activity'], async (g) => {
    const rows = await sql.all<{ activity: string; n: number }>("SELECT activity, COUNT(*) AS n FROM acd_agents WHERE status <> 'offline' GROUP BY activity");
    g.reset();
    for (const r of rows) g.set({ activity: r.activity }, r.n);
  });
  const counters = (what: AcdCount, help: string) => {
    new Counter({
      name: `ringbase_acd_${what}_total`, help, labelNames: ['queue'], registers: [perAccount],
      collect() {
        this.reset();
        for (const [queue, c] of stats.entries()) this.inc({ queue }, c[what]);
      },
    });
    new Counter({
      name: `ringbase_acd_calls_${what}_total`, help: `${help}, every queue`, registers: [open],
      collect() {
        this.reset();
        this.inc([...stats.entries()].reduce((sum, [, c]) => sum + c[what], 0));
      },
    });
  };
  counters('offered', "Calls offered to agents (each ring of an agent's seat)");
  counters('answered', 'Offers an agent answered');
  counters('abandoned', 'Callers who hung up while waiting');
}
