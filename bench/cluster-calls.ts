// Several control planes on the real engines (docs/cluster.md): the highest sustained rate of inbound calls with zero
// failed calls, with two control planes beside one, on the same engines in the same run: one drachtio-server (which
// hands new INVITEs to the connected nodes in turn), two FreeSWITCH, one throwaway PostgreSQL database (fsync on).
// Each node is a process of its own; the document is a Say of one sentence (rendered once per node, on a warm-up
// call) and a Hangup. Run: npx tsx bench/cluster-calls.ts. Bounded: at most RATES.length steps of STEP_S s per size.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { findEngineBinaries, startEngines, startExtraMediaServer, SKIP_LINE as ENGINES_SKIP } from '../test/helpers/engines.js';
import { createTestDatabase, findPostgresBinaries, SKIP_LINE as POSTGRES_SKIP, startPostgresServer } from '../test/helpers/postgres.js';
import { clusterEnv, startClusterNodes } from '../test/helpers/cluster-nodes.js';
import { freePort } from '../test/helpers/server-process.js';
import { runLoad } from '../test/engine-suite/real-sipp.js';
import { openStore } from '../src/repositories.js';
import { systemClock } from '../src/clock.js';
import { NumberService } from '../src/numbers/service.js';
import { SENTENCE } from './bare-say-hangup.js';
import { highestCleanRate } from './cps-steps.js';
import { reportRows } from './row.js';
import { RtpSink } from './rtp-sink.js';
import { carrierAtAddress } from '../src/store/carriers.js';

const RATES = [20, 40, 60, 80, 100, 120, 140, 160];
const STEP_S = 8;
const DID = '+15550001000';
const DOCUMENT = `<Response><Say>${SENTENCE}</Say><Hangup/></Response>`;

const bins = findEngineBinaries();
const pgBin = findPostgresBinaries();
if (!bins || !pgBin) {
  console.log(`# ${bins ? POSTGRES_SKIP : ENGINES_SKIP}`);
  process.exit(0);
}

const teardowns: Array<() => unknown> = [];
const t = { teardown: (fn: () => unknown) => { teardowns.unshift(fn); } };
const webhook = createServer((req, res) => {
  req.resume();
  req.on('end', () => { res.writeHead(200, { 'content-type': 'application/xml' }); res.end(DOCUMENT); });
});
await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
teardowns.unshift(() => webhook.close());
const pg = await startPostgresServer(pgBin, { durable: true });
teardowns.unshift(() => pg.stop());
// FreeSWITCH's default of 30 new sessions per second would cap both sizes alike: raised well above the steps.
const eng = await startEngines(bins, { sessionsPerSecond: 1000 });
teardowns.unshift(() => eng.stop());
const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-cluster-'));
teardowns.unshift(() => rmSync(scratch, { recursive: true, force: true }));
const sink = await RtpSink.open();
teardowns.unshift(() => sink.close());
try {
  const extra = await startExtraMediaServer(bins, { sessionsPerSecond: 1000 });
  teardowns.unshift(() => extra.stop());
  const database = await createTestDatabase(pg.url);
  teardowns.unshift(() => database.drop());
  const seed = await openStore(mkdtempSync(path.join(tmpdir(), 'ringbase-bench-seed-')), systemClock(), { url: database.url, poolSize: 1 });
  const account = await seed.accounts.create({ name: 'bench', trunking: false, trunkCapacity: 0 });
  await new NumberService(seed.numbers, { allowLocalTargets: true }).add(DID, account.id, { webhook_url: `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/voice` });
  await seed.carriers.add('bench-sipp', carrierAtAddress('127.0.0.1', null, null));
  await seed.close();
  const env = {
    ...eng.env, ...clusterEnv(database.url), RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1',
    FREESWITCH_SERVERS: [eng.freeswitch, extra.address].map((s) => `${s.host}:${s.port}:${s.password}`).join(','),
  };
  const load = async (rate: number, count: number) =>
    runLoad({ target: `127.0.0.1:${eng.drachtio.sipPort}`, localPort: await freePort(), rtpPort: sink.port, to: DID, rate, count, scratch });

  const best: Record<number, number> = {};
  for (const size of [1, 2]) {
    const nodes = await startClusterNodes(t, size, env);
    // Every node renders the sentence on its first call; the warm-up gives each one some.
    const warm = await load(2, 4 * size);
    console.log(`  ${size} node(s): warm-up ${warm.successful}/${4 * size} completed`);
    best[size] = await highestCleanRate(`${size} node(s)`, RATES, STEP_S, load);
    for (const n of nodes) n.server.child.kill('SIGTERM');
    await Promise.all(nodes.map((n) => n.server.exited));
  }
  console.log(`sustained inbound Say + Hangup, zero failed calls: one node ${best[1]} CPS, two nodes ${best[2]} CPS`);
  reportRows([{
    figure: 'sustained inbound Say+Hangup CPS, zero failures, two control planes [PostgreSQL]', value: best[2]!, baseline: best[1]!,
    baselineName: 'one control plane, same engines and database, same run', unit: 'CPS', better: 'higher',
  }]);
} finally {
  for (const fn of teardowns) await fn();
}
process.exit(0);
