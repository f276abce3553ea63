// The dashboard's home page (calls per day and answer rate over 14 days, the last 10 calls) on an account with
// many calls, beside the call log's first page (25 calls, one indexed range read) on the same server and data,
// in the same run. Requests are sequential from one client: page latency, not throughput.
// Run: npx tsx bench/dashboard.ts [calls, default 100000] [requests per page, default 200]
import { UserService } from '../src/users/service.js';
import { newSid } from '../src/crypto/tokens.js';
import { rebuildCallDays } from '../src/store/call-days.js';
import { reportRows } from './row.js';
import { startBenchServer } from './server.js';

const CALLS = Math.max(1, Number(process.argv[2] ?? 100_000));
const REQUESTS = Math.max(10, Number(process.argv[3] ?? 200));
const DAY_MS = 86_400_000;

const server = await startBenchServer();
const { store, clock, base } = server;

const account = await store.accounts.create({ name: 'bench', trunking: false, trunkCapacity: 0 });
// Spread over 30 days, a quarter unanswered: half of them inside the charts' 14 days.
const now = clock.now();
// Written straight in one transaction: through the repository, 100,000 calls would take a minute. Finished calls,
// as history is: calls left open with no owner are what a crashed node leaves, and the crash reconciler (every
// node, periodically) finished all 100,000 of them during the measurement.
await store.sql.transaction(async (tx) => {
  for (let i = 0; i < CALLS; i++) {
    const createdMs = now - (i / CALLS) * 30 * DAY_MS;
    const created = new Date(createdMs).toISOString();
    const answered = i % 4 !== 0;
    await tx.run(`INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, created_at, answered_at, ended_at, duration)
      VALUES (?, ?, 'inbound', '+15557770001', '+15550001000', ?, ?, ?, ?, ?)`,
    [newSid('CA'), account.id, answered ? 'completed' : 'no-answer', created, answered ? created : null, new Date(createdMs + 60_000).toISOString(), answered ? 60 : 0]);
  }
});
// Written around the repository, so the per-day counts the calls keep are counted as an upgrade's migration would.
await rebuildCallDays(store.sql);
const users = new UserService(store.users, clock);
const { user } = await users.create(account.id, 'bench@example.com');
await users.setPassword(user.id, 'bench password 123');
const signedIn = await users.signIn('bench@example.com', 'bench password 123', '127.0.0.1');
if (!signedIn.ok) throw new Error('sign-in failed');
const cookie = `rb_session=${signedIn.session.token}`;

async function get(urlPath: string): Promise<number> {
  const started = performance.now();
  const res = await fetch(base + urlPath, { headers: { cookie }, redirect: 'manual' });
  await res.text();
  if (res.status !== 200) throw new Error(`${urlPath}: HTTP ${res.status}`);
  return performance.now() - started;
}

const quantile = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
const home: number[] = [];
const list: number[] = [];
for (let i = 0; i < 10; i++) { await get('/dashboard'); await get('/dashboard/calls'); }
// Interleaved, so both pages see the same machine state.
for (let i = 0; i < REQUESTS; i++) { home.push(await get('/dashboard')); list.push(await get('/dashboard/calls')); }

const fmt = (x: number) => Math.round(x * 10) / 10;
console.log(`${CALLS} calls on one account, ${REQUESTS} sequential requests per page, server on 127.0.0.1`);
for (const q of [0.5, 0.95]) {
  console.log(`p${q * 100}: GET /dashboard ${fmt(quantile(home, q))} ms, GET /dashboard/calls (baseline) ${fmt(quantile(list, q))} ms`);
}
reportRows([0.5, 0.95].map((q) => ({
  figure: `Dashboard home, ${CALLS} calls (p${q * 100} ms)`, value: fmt(quantile(home, q)), baseline: fmt(quantile(list, q)),
  baselineName: 'call log first page', unit: 'ms', better: 'lower' as const,
  ...(q === 0.95 ? { target: '<= 2x baseline', met: quantile(home, q) <= 2 * quantile(list, q) } : {}),
})));

await server.stop();
