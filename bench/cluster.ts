// Several control planes: what forwarding a command to the node carrying the call costs (docs/cluster.md). Two
// whole control planes (sandbox engines) on one throwaway PostgreSQL database (fsync on, as in production); a call
// held on B with a recording; the same command (pause, then resume, the recording) sent to B itself and to A, which
// forwards it to B, in alternation so both see the same machine. Latency measured at the client, over loopback.
// Run: npx tsx bench/cluster.ts [commands per side=400]
import { createTestDatabase, findPostgresBinaries, SKIP_LINE, startPostgresServer } from '../test/helpers/postgres.js';
import { startHarness, type Harness } from '../test/helpers/harness.js';
import { NumberService } from '../src/numbers/service.js';
import { until } from '../test/helpers/waits.js';
import { reportRows } from './row.js';
import { randomBytes } from 'node:crypto';

const COMMANDS = Math.max(20, Number(process.argv[2] ?? 400));
const WARM_UP = 30;
const DID = '+15550001000';
/** The bound: forwarding adds at most this at p95, on loopback. */
const ADDED_P95_MS = 50;

const bin = findPostgresBinaries();
if (!bin) {
  console.log(`# ${SKIP_LINE}`);
  process.exit(0);
}
const server = await startPostgresServer(bin, { durable: true });
const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => { teardowns.unshift(fn); } };
try {
  const database = await createTestDatabase(server.url);
  teardowns.unshift(() => database.drop());
  const shared = { url: database.url, poolSize: 4 };
  const masterKey = randomBytes(32);
  const node = () => startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', LOG_LEVEL: 'warn' }, database: shared, masterKey });
  const a = await node();
  const b = await node();
  const account = await a.account();
  await new NumberService(a.store.numbers, { allowLocalTargets: true }).add(DID, account.id);
  const placed = await b.request('POST', '/api/calls', { key: account.key, body: { from: DID, to: '+15550004444', markup: '<Response><Say loop="0">Please hold.</Say></Response>' } });
  const sid = placed.body.sid as string;
  await until('the call answered on B', 10_000, async () => (await a.store.calls.get(sid))?.status === 'in-progress');
  const recording = (await b.request('POST', `/api/calls/${sid}/recordings`, { key: account.key, body: {} })).body.sid as string;

  let paused = false;
  /** One command through `via`; its latency in ms. */
  const command = async (via: Harness): Promise<number> => {
    paused = !paused;
    const started = performance.now();
    const res = await via.request('POST', `/api/calls/${sid}/recordings/${recording}`, { key: account.key, body: { status: paused ? 'paused' : 'in-progress' } });
    const ms = performance.now() - started;
    if (res.status !== 200) throw new Error(`command answered ${res.status}: ${res.text.slice(0, 200)}`);
    return ms;
  };
  for (let i = 0; i < WARM_UP; i++) { await command(b); await command(a); }
  const local: number[] = [];
  const forwarded: number[] = [];
  for (let i = 0; i < COMMANDS; i++) {
    local.push(await command(b));
    forwarded.push(await command(a));
  }
  const pct = (xs: number[], p: number) => [...xs].sort((x, y) => x - y)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))]!;
  const figures = { local: { p50: pct(local, 50), p95: pct(local, 95) }, forwarded: { p50: pct(forwarded, 50), p95: pct(forwarded, 95) } };
  console.log(`${COMMANDS} commands each: on the owner p50 ${figures.local.p50.toFixed(2)} ms, p95 ${figures.local.p95.toFixed(2)} ms; `
    + `forwarded p50 ${figures.forwarded.p50.toFixed(2)} ms, p95 ${figures.forwarded.p95.toFixed(2)} ms`);
  const baselineName = 'the same command sent to the node carrying the call, same run';
  reportRows([
    { figure: 'command forwarded to the node carrying the call, p50 (ms) [PostgreSQL]', value: figures.forwarded.p50, baseline: figures.local.p50, baselineName, unit: 'ms', better: 'lower' },
    {
      figure: 'command forwarded to the node carrying the call, p95 (ms) [PostgreSQL]', value: figures.forwarded.p95, baseline: figures.local.p95, baselineName, unit: 'ms', better: 'lower',
      target: `adds <= ${ADDED_P95_MS} ms at p95`, met: figures.forwarded.p95 - figures.local.p95 <= ADDED_P95_MS,
    },
  ]);
  await b.request('POST', `/api/calls/${sid}`, { key: account.key, body: { status: 'completed' } });
} finally {
  for (const fn of teardowns) await fn();
  await server.stop();
}
