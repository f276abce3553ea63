// Live API throughput with autocannon: authenticated trunk fetch and list (API-key lookup, store read, SIP
// password decryption, JSON serialisation) beside /healthz on the same server as the baseline, in the same run;
// then the same two requests to the server started as users start it, beside a bare fastify hello-world in its
// own process (bench/outside-server.ts).
// On SQLite, or on PostgreSQL when RINGBASE_DATABASE_URL is set (bench/store.ts), where the targets are the issue's
// PostgreSQL ones.
// Run: npx tsx bench/api.ts [seconds per case and round, default 3]
import autocannon from 'autocannon';
import { startBenchServer } from './server.js';
import { startAsUsersDo, startHelloWorld } from './outside-server.js';
import { reportRows } from './row.js';
import { ON_POSTGRES, onBackend } from './backend.js';

const SECONDS = Math.min(30, Math.max(1, Number(process.argv[2] ?? 3)));
const server = await startBenchServer();
const { app, store, base } = server;

const account = await store.accounts.create({ name: 'bench', trunking: true, trunkCapacity: 50 });
const { key } = await store.apiKeys.create(account.id);
for (let i = 0; i < 20; i++) await app.trunks.create(account, 'wss', { label: `seat ${i}` });
await app.trunks.settled();
const trunkId = (await store.trunks.listForAccount(account.id))[0]!.id;
const headers = { authorization: `Bearer ${key}`, accept: 'application/json' };

async function run(urlPath: string, auth: boolean, seconds: number): Promise<number> {
  // A worker thread generates the load, so the server keeps the main thread to itself.
  const r = await autocannon({ url: base + urlPath, connections: 32, duration: seconds, headers: auth ? headers : {}, workers: 1 });
  if (r.non2xx > 0 || r.errors > 0) throw new Error(`${urlPath}: ${r.non2xx} non-2xx, ${r.errors} errors`);
  return r.requests.average;
}

// The machine's speed drifts over seconds (shared cores), so the cases alternate in rounds and each ratio is taken
// against the baseline of its own round; the median round is reported.
const ROUNDS = 3;
const cases = { baseline: ['/healthz', false], fetch: [`/api/partner/trunks/${trunkId}`, true], list: ['/api/partner/trunks', true] } as const;
const rounds: Record<keyof typeof cases, number>[] = [];
// An unreported second of each case first warms the JIT and the route's caches.
for (const name of Object.keys(cases) as (keyof typeof cases)[]) await run(cases[name][0], cases[name][1], 1);
console.log(`autocannon, 32 connections, ${ROUNDS} rounds of ${SECONDS} s per case, server on 127.0.0.1 (one Node process), store on ${ON_POSTGRES ? 'PostgreSQL' : 'SQLite'}`);
for (let i = 0; i < ROUNDS; i++) {
  const round = { baseline: 0, fetch: 0, list: 0 };
  for (const name of Object.keys(cases) as (keyof typeof cases)[]) round[name] = await run(cases[name][0], cases[name][1], SECONDS);
  console.log(`round ${i + 1}: /healthz ${Math.round(round.baseline)} req/s, fetch ${Math.round(round.fetch)}, list of 20 ${Math.round(round.list)}`);
  rounds.push(round);
}
const median = (name: 'fetch' | 'list') => rounds.slice().sort((a, b) => a[name] / a.baseline - b[name] / b.baseline)[Math.floor(ROUNDS / 2)]!;
const row = (figure: string, name: 'fetch' | 'list', ratio: number) => {
  const round = median(name);
  return {
    figure: onBackend(figure), value: Math.round(round[name]), baseline: Math.round(round.baseline), baselineName: 'GET /healthz on the same server, same round',
    unit: 'req/s', better: 'higher' as const, target: `>= ${ratio}x baseline`, met: round[name] >= ratio * round.baseline,
  };
};
// PostgreSQL's target is one for both: the read caches (keys, accounts, trunks) answer most of each request.
reportRows([row('API trunk fetch, authenticated', 'fetch', ON_POSTGRES ? 0.5 : 0.6), row('API trunk list of 20, authenticated', 'list', ON_POSTGRES ? 0.5 : 0.4)]);

await server.stop();

// From outside, as users run it: the server started as `npm start` starts it, beside a bare fastify hello-world in
// its own process, alternating in rounds as above. Every request pays here what the same-server ratios hide: the
// request log as shipped, the hooks, the HTTP stack, all in the server's one process.
const outside = await startAsUsersDo();
const hello = await startHelloWorld();
try {
  const at = (urlPath: string) => outside.base + urlPath;
  const load = async (url: string, headers: Record<string, string>, seconds: number) => {
    const r = await autocannon({ url, connections: 32, duration: seconds, headers, workers: 1 });
    if (r.non2xx > 0 || r.errors > 0) throw new Error(`${url}: ${r.non2xx} non-2xx, ${r.errors} errors`);
    return r.requests.average;
  };
  const outsideCases = {
    baseline: () => load(hello.url, {}, SECONDS),
    fetch: () => load(at(`/api/partner/trunks/${outside.trunkId}`), outside.headers, SECONDS),
    list: () => load(at('/api/partner/trunks'), outside.headers, SECONDS),
  };
  await load(hello.url, {}, 1);
  await load(at(`/api/partner/trunks/${outside.trunkId}`), outside.headers, 1);
  const outsideRounds: Record<keyof typeof outsideCases, number>[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const round = { baseline: await outsideCases.baseline(), fetch: await outsideCases.fetch(), list: await outsideCases.list() };
    console.log(`from outside, round ${i + 1}: hello-world ${Math.round(round.baseline)} req/s, fetch ${Math.round(round.fetch)}, list of 20 ${Math.round(round.list)}`);
    outsideRounds.push(round);
  }
  const outsideRow = (figure: string, name: 'fetch' | 'list', ratio: number) => {
    const round = outsideRounds.slice().sort((a, b) => a[name] / a.baseline - b[name] / b.baseline)[Math.floor(ROUNDS / 2)]!;
    return {
      figure: onBackend(figure), value: Math.round(round[name]), baseline: Math.round(round.baseline),
      baselineName: 'a bare fastify hello-world in its own process, same round', unit: 'req/s', better: 'higher' as const,
      target: `>= ${ratio}x baseline`, met: round[name] >= ratio * round.baseline,
    };
  };
  reportRows([
    outsideRow('API trunk fetch, authenticated, npm start measured from outside', 'fetch', 0.6),
    outsideRow('API trunk list of 20, authenticated, npm start measured from outside', 'list', 0.4),
  ]);
} finally {
  await hello.stop();
  await outside.stop();
}
