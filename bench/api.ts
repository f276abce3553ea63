// Live API throughput with autocannon: authenticated trunk fetch and list (API-key lookup, SQLite read, SIP
// password decryption, JSON serialisation) beside /healthz on the same server as the baseline, in the same run.
// Run: npx tsx bench/api.ts [seconds per case, default 5]
import autocannon from 'autocannon';
import { startBenchServer } from './server.js';
import { reportRows } from './row.js';

const SECONDS = Math.min(30, Math.max(1, Number(process.argv[2] ?? 5)));
const server = await startBenchServer();
const { app, store, base } = server;

const account = store.accounts.create({ name: 'bench', trunking: true, trunkCapacity: 50 });
const { key } = store.apiKeys.create(account.id);
for (let i = 0; i < 20; i++) app.trunks.create(account, 'wss', { label: `seat ${i}` });
await app.trunks.settled();
const trunkId = store.trunks.listForAccount(account.id)[0]!.id;
const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };

async function run(name: string, urlPath: string, auth: boolean) {
  // A worker thread generates the load, so the server keeps the main thread to itself.
  const r = await autocannon({ url: base + urlPath, connections: 32, duration: SECONDS, headers: auth ? headers : {}, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${name}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  console.log(`${name.padEnd(34)} ${Math.round(r.requests.average).toString().padStart(7)} req/s   p50 ${r.latency.p50} ms   p99 ${r.latency.p99} ms`);
  return r.requests.average;
}

console.log(`autocannon, 32 connections, ${SECONDS} s per case, server on 127.0.0.1 (one Node process)`);
const baseline = await run('GET /healthz (baseline)', '/healthz', false);
const one = await run(`GET /api/partner/trunks/${trunkId}`, `/api/partner/trunks/${trunkId}`, true);
const list = await run('GET /api/partner/trunks (20)', '/api/partner/trunks', true);
console.log(`fetch at ${Math.round((one / baseline) * 100)}% of baseline, list at ${Math.round((list / baseline) * 100)}%`);
const row = (figure: string, value: number, ratio: number) => ({
  figure, value: Math.round(value), baseline: Math.round(baseline), baselineName: 'GET /healthz on the same server', unit: 'req/s',
  better: 'higher' as const, target: `>= ${ratio}x baseline`, met: value >= ratio * baseline,
});
reportRows([row('API trunk fetch, authenticated', one, 0.6), row('API trunk list of 20, authenticated', list, 0.4)]);

await server.stop();
