// ACD routing decision latency: one queue served by AGENTS agents with WAITING callers in line; each decision
// reserves the first caller for the longest-idle agent whose seat can ring (one transaction, src/acd/routing.ts; on SQLite,
// or on PostgreSQL when RINGBASE_DATABASE_URL is set: bench/store.ts),
// then the call is answered, ends and is wrapped up so the agent is free again and the line keeps its length.
// Baseline in the same run: the decision's own first read alone (the first caller in line, one indexed SELECT).
// Run: npx tsx bench/acd.ts [agents=1000] [waiting=10000] [decisions=3000]
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { systemClock } from '../src/clock.js';
import { openStore } from '../src/repositories.js';
import { AcdRouter } from '../src/acd/routing.js';
import { DEFAULT_QUEUE_SETTINGS } from '../src/acd/queues.js';
import { TRUNK_SETTING_DEFAULTS } from '../src/trunks/service.js';
import { reportRows } from './row.js';
import { BENCH_DATABASE, ON_POSTGRES, onBackend } from './backend.js';

const AGENTS = Math.max(1, Number(process.argv[2] ?? 1_000));
const WAITING = Math.max(1, Number(process.argv[3] ?? 10_000));
const DECISIONS = Math.max(100, Number(process.argv[4] ?? 3_000));
// On PostgreSQL a decision is a transaction of several round trips to the server.
const P99_TARGET_MS = ON_POSTGRES ? 10 : 5;

const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-acd-'));
const clock = systemClock();
const store = await openStore(dir, clock, BENCH_DATABASE);
const account = await store.accounts.create({ name: 'bench', trunking: true, trunkCapacity: 10 });
const trunk = await store.trunks.create({ accountId: account.id, capacity: 10, endpointName: 'tk-bench', sipPasswordSealed: 'x', transport: 'wss', settings: TRUNK_SETTING_DEFAULTS });
const queue = await store.queues.create(account.id, 'QUbench', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'support' });
for (let i = 0; i < AGENTS; i++) await store.agents.create(account.id, `AG${i}`, { friendlyName: `agent ${i}`, trunkId: trunk.id, queueIds: [queue.id], status: 'available', breakReason: null });
const router = new AcdRouter(store.sql, clock);
let next = 0;
for (; next < WAITING; next++) await router.enqueue(`CA${next}`, queue.id);
// A tenth of the seats are not registered: the decision passes over them.
const seatUp = (a: { id: number }) => a.id % 10 !== 0;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)]!;
const firstInLine = () => store.sql.one('SELECT call_sid FROM acd_members WHERE queue_id = ? AND offered_to IS NULL ORDER BY enqueued_at, id LIMIT 1', [queue.id]);
const baseline: number[] = [];
const decisions: number[] = [];
for (let i = 0; i < DECISIONS; i++) {
  let t0 = performance.now();
  await firstInLine();
  baseline.push(performance.now() - t0);
  t0 = performance.now();
  const offer = await router.reserveNext(queue.id, seatUp);
  decisions.push(performance.now() - t0);
  if (!offer) throw new Error('no offer: the bench ran out of callers or agents');
  await router.ringing(offer);
  await router.answered(offer);
  await router.callEnded(offer.agentId, offer.callSid);
  await router.wrapUpDone(offer.agentId);
  await router.enqueue(`CA${next++}`, queue.id);
}
const ms = (x: number) => Math.round(x * 1000) / 1000;
console.log(`${AGENTS} agents, ${WAITING} callers waiting, ${DECISIONS} decisions: p50 ${ms(pct(decisions, 50))} ms, p99 ${ms(pct(decisions, 99))} ms `
  + `(first-in-line read alone: p50 ${ms(pct(baseline, 50))} ms, p99 ${ms(pct(baseline, 99))} ms)`);
const row = (p: number) => ({
  figure: onBackend(`ACD routing decision, ${AGENTS} agents and ${WAITING} waiting, p${p}`), value: ms(pct(decisions, p)), baseline: ms(pct(baseline, p)),
  baselineName: 'first-in-line SELECT alone', unit: 'ms', better: 'lower' as const,
  ...(p === 99 ? { target: `p99 <= ${P99_TARGET_MS} ms`, met: pct(decisions, 99) <= P99_TARGET_MS } : {}),
});
reportRows([row(50), row(99)]);
await store.close();
rmSync(dir, { recursive: true, force: true });
