// ACD offer-to-ring on real drachtio-server + FreeSWITCH, loopback only: sipp callers enter <Enqueue>, one agent's
// seat (a sipp phone registered with the trunk's credentials) rings and answers; measured from the routing decision
// (the reservation) to the seat's 180 Ringing reaching the platform. Baseline in the same run: the same seat rung
// by <Dial><Client>, from the dial's originate to its 180. The difference is what the ACD adds to ringing an agent.
// Run: npx tsx bench/acd-ring.ts [calls=20]. Bounded: CALLS calls each way, one at a time.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { startEngines } from '../test/helpers/engines.js';
import { freePort } from '../test/helpers/server-process.js';
import { runCaller, runParty, runRegister } from '../test/engine-suite/real-sipp.js';
import { rtpRecorder } from '../test/engine-suite/real-rtp.js';
import { startBenchServer } from './server.js';
import { engineBinariesOrExit } from './platform.js';
import { reportRows } from './row.js';
import { NumberService } from '../src/numbers/service.js';
import type { OriginateRequest } from '../src/engine/port.js';
import { carrierAtAddress } from '../src/store/carriers.js';

const CALLS = Math.max(5, Number(process.argv[2] ?? 20));
const DID = '+15550001000';
const ACD_CALLER = '+1555040';
const DIAL_CALLER = '+1555050';

const bins = engineBinariesOrExit();
const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)] ?? Number.NaN;

const engines = await startEngines(bins);
const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-acd-ring-'));
let endpointName = '';
const hook = createServer((req, res) => {
  const from = new URL(req.url ?? '/', 'http://x').searchParams.get('from') ?? '';
  let body = '';
  req.on('data', (c) => { body += c; });
  req.on('end', () => {
    const caller = (JSON.parse(body || '{}') as { from?: string }).from ?? from;
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(caller.startsWith(ACD_CALLER) ? '<Response><Enqueue>bench</Enqueue></Response>' : `<Response><Dial timeout="10"><Client>${endpointName}</Client></Dial></Response>`);
  });
});
await new Promise<void>((r) => hook.listen(0, '127.0.0.1', r));
const server = await startBenchServer({ ...engines.env, RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_SIP_HOST: 'sip.bench.example', RINGBASE_TRUSTED_PROXIES: '127.0.0.1' });
const { app, store, base } = server;
const account = await store.accounts.create({ name: 'bench', trunking: true, trunkCapacity: 5 });
await new NumberService(store.numbers, { allowLocalTargets: true }).add(DID, account.id, { webhook_url: `http://127.0.0.1:${(hook.address() as AddressInfo).port}/voice` });
await store.carriers.add('bench-sipp', carrierAtAddress('127.0.0.1', null, null));
const { key } = await store.apiKeys.create(account.id);
const api = async (method: string, p: string, body: unknown) => (await fetch(`${base}${p}`, {
  method, body: JSON.stringify(body), headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json', 'x-forwarded-proto': 'https' },
})).json() as Promise<Record<string, unknown>>;

// The moments measured: when the router reserved an agent, when an originate started, when its 180 arrived.
let reservedAt = 0;
let originateAt = 0;
let ringAt = 0;
const router = app.callServices.acd.router;
const reserve = router.reserveNext.bind(router);
router.reserveNext = async (...args) => {
  const offer = await reserve(...args);
  if (offer) reservedAt = performance.now();
  return offer;
};
const engine = app.callServices.engine;
const originate = engine.originate.bind(engine);
engine.originate = (req: OriginateRequest) => {
  originateAt = performance.now();
  return originate({ ...req, onRinging: () => { ringAt = performance.now(); req.onRinging?.(); } });
};

const trunk = await api('POST', '/api/partner/trunks', { transport: 'udp' });
endpointName = trunk.endpoint_name as string;
await app.trunks.settled();
const seatPort = await freePort();
const target = `127.0.0.1:${engines.drachtio.sipPort}`;
const reg = await runRegister(target, seatPort, { username: endpointName, password: (trunk.connection as { password: string }).password }, scratch);
if ((await reg.exited) !== 0) throw new Error(`seat REGISTER refused: ${reg.output().slice(-300)}`);
const seat = await runParty(seatPort, { behavior: 'answer', hangupAfterMs: 300 }, scratch, CALLS * 2);
await api('POST', '/v1/queues', { friendly_name: 'bench', wrap_up_seconds: 0 });
const agent = await api('POST', '/v1/agents', { friendly_name: 'bench', trunk_id: trunk.id, queues: ['bench'] });
await api('POST', `/v1/agents/${agent.sid as string}`, { status: 'available' });

async function oneCall(from: string): Promise<number> {
  ringAt = 0;
  const rtp = await rtpRecorder();
  const sipp = await runCaller({ target, localPort: await freePort(), rtpPort: rtp.port, from, to: DID, plan: {}, scratch });
  await sipp.exited;
  rtp.close();
  if (!ringAt) throw new Error(`the seat never rang for ${from}: ${sipp.output().slice(-300)}`);
  return ringAt - (from.startsWith(ACD_CALLER) ? reservedAt : originateAt);
}

const acd: number[] = [];
const dial: number[] = [];
try {
  for (let i = 0; i < CALLS; i++) {
    acd.push(await oneCall(`${ACD_CALLER}${String(1000 + i)}`));
    dial.push(await oneCall(`${DIAL_CALLER}${String(1000 + i)}`));
    // The agent is free again (wrap-up 0) before the next caller enters the queue.
    while (((await store.agents.getForAccount(account.id, agent.sid as string))?.activity ?? 'idle') !== 'idle') await new Promise((r) => setTimeout(r, 10));
  }
  const r = (x: number) => Math.round(x * 10) / 10;
  console.log(`offer-to-ring over ${CALLS} calls: p50 ${r(pct(acd, 50))} ms, p95 ${r(pct(acd, 95))} ms; <Dial><Client> originate-to-ring p50 ${r(pct(dial, 50))} ms, p95 ${r(pct(dial, 95))} ms`);
  const row = (p: number) => ({
    figure: `ACD offer to agent's seat ringing (real engines), p${p}`, value: r(pct(acd, p)), baseline: r(pct(dial, p)),
    baselineName: 'the same seat rung by <Dial><Client>', unit: 'ms', better: 'lower' as const,
  });
  reportRows([row(50), row(95)]);
} finally {
  seat.kill();
  await server.stop();
  hook.close();
  await engines.stop();
  rmSync(scratch, { recursive: true, force: true });
}
