import { Counter, Gauge, type Registry } from 'prom-client';
import type { Store } from '../store/index.js';
import type { AcdCount, AcdStats } from '../acd/stats.js';

interface QueueRow { sid: string; waiting: number; first: number | null }
interface AgentRow { sid: string; activity: string; n: number }

/**
 * Per ACD queue, read at scrape time: callers waiting, the longest wait, its agents (not offline) by activity, and
 * offers, answers and abandons counted since start.
 */
export function installAcdMetrics(registry: Registry, store: Store, stats: AcdStats, now: () => number): void {
  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge) => void) =>
    new Gauge({ name, help, labelNames, registers: [registry], collect() { this.reset(); fill(this); } });
  const queues = () => store.db.prepare(`SELECT q.sid, COUNT(m.call_sid) AS waiting, MIN(m.enqueued_at) AS first
    FROM acd_queues q LEFT JOIN acd_members m ON m.queue_id = q.id GROUP BY q.id`).all() as QueueRow[];
  gauge('ringbase_acd_queue_waiting', 'Callers waiting in the queue', ['queue'], (g) => {
    for (const q of queues()) g.set({ queue: q.sid }, q.waiting);
  });
  gauge('ringbase_acd_queue_longest_wait_seconds', 'How long the first caller in line has waited (0 when none)', ['queue'], (g) => {
    for (const q of queues()) g.set({ queue: q.sid }, q.first === null ? 0 : Math.max(0, Math.floor((now() - q.first) / 1000)));
  });
  gauge('ringbase_acd_agents', "The queue's agents that are not offline, by activity", ['queue', 'activity'], (g) => {
    const rows = store.db.prepare(`SELECT q.sid, a.activity, COUNT(*) AS n FROM acd_agents a JOIN acd_agent_queues aq ON aq.agent_id = a.id
      JOIN acd_queues q ON q.id = aq.queue_id WHERE a.status <> 'offline' GROUP BY q.id, a.activity`).all() as AgentRow[];
    for (const r of rows) g.set({ queue: r.sid, activity: r.activity }, r.n);
  });
  const counter = (what: AcdCount, help: string) => new Counter({
    name: `ringbase_acd_${what}_total`, help, labelNames: ['queue'], registers: [registry],
    collect() {
      this.reset();
      for (const [queue, c] of stats.entries()) this.inc({ queue }, c[what]);
    },
  });
  counter('offered', "Calls offered to agents (each ring of an agent's seat)");
  counter('answered', 'Offers an agent answered');
  counter('abandoned', 'Callers who hung up while waiting');
}
