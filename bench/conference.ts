// Conference figures on real drachtio-server + FreeSWITCH, beside bare drachtio-srf + drachtio-fsmrf
// (bench/bare-conference.ts) on the same engines in the same run, loopback only:
//  1. capacity: sipp callers dial in and are put in 3-party rooms (Ringbase: a <Dial><Conference> document from a
//     webhook; bare: straight into the room), stepped up until a step loses >= 0.1 % of the conference audio sent
//     to the legs, or a leg gets none. Every leg's media goes to one socket (bench/rtp-sink.ts) that counts each
//     stream's sequence numbers, so loss is exact; measured over WINDOW_MS once every leg is receiving;
//  2. the same for one room of growing size;
//  3. join latency: Ringbase from POST /v1/conferences/{name}/participants to the participant in-progress; bare from
//     originating the call to FreeSWITCH listing the member; p50/p95 over JOINS joins to an answering sipp party.
// Run: npx tsx bench/conference.ts. Bounded: every step's calls hang up after HOLD_MS; at most the listed steps.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Store } from '../src/store/index.js';
import { startPlatform } from './platform.js';
import { findEngineBinaries, startEngines, SKIP_LINE } from '../test/helpers/engines.js';
import { freePort } from '../test/helpers/server-process.js';
import { runLoad, runParty } from '../test/engine-suite/real-sipp.js';
import { startBareConference } from './bare-conference.js';
import { RtpSink } from './rtp-sink.js';

const TRIPLES = [10, 30, 60, 90];
const ROOM = [18, 36, 72];
const JOINS = 20;
const RATE = 30;
const HOLD_MS = 30_000;
const WINDOW_MS = 6_000;
const DID = '+15550001000';
const PARTY = '+15550009999';
const LOSS_LIMIT = 0.001;

const bins = findEngineBinaries();
if (!bins) {
  console.log(SKIP_LINE);
  process.exit(0);
}

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)] ?? Number.NaN;

// The customer's webhook: each caller into the room the current step assigns by arrival order.
let arrivals = 0;
let roomOf = (i: number) => `r${Math.floor(i / 3)}`;
const webhook = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/xml' })
    .end(`<Response><Dial><Conference beep="false">${roomOf(arrivals++)}</Conference></Dial></Response>`));
});
await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/voice`;

const eng = await startEngines(bins, { sessionsPerSecond: 1000 });
const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-conf-'));
const target = `127.0.0.1:${eng.drachtio.sipPort}`;
const sink = await RtpSink.open();

/** One step: `legs` callers in, wait until every leg receives audio, measure a window, let them hang up. */
async function step(label: string, legs: number, rooms: (i: number) => string): Promise<{ ok: boolean; text: string }> {
  arrivals = 0;
  roomOf = rooms;
  sink.reset();
  const load = runLoad({ target, localPort: await freePort(), rtpPort: sink.port, to: DID, rate: RATE, count: legs, scratch });
  const deadline = Date.now() + (legs / RATE) * 1000 + 10_000;
  while (sink.active() < legs && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100));
  const receiving = sink.active();
  sink.mark();
  await new Promise((r) => setTimeout(r, WINDOW_MS));
  const m = sink.loss();
  await load;
  const ok = receiving >= legs && m.loss < LOSS_LIMIT;
  const text = `${label}: ${legs} legs, ${receiving} receiving, loss ${(m.loss * 100).toFixed(3)} % of ${m.packets} packets${ok ? '' : '  ← over'}`;
  console.log(`  ${text}`);
  return { ok, text };
}

async function capacity(label: string): Promise<{ triples: number; room: number }> {
  let triples = 0;
  for (const n of TRIPLES) {
    if (!(await step(`${label} ${n} rooms of 3`, n * 3, (i) => `r${Math.floor(i / 3)}`)).ok) break;
    triples = n;
  }
  let room = 0;
  for (const size of ROOM) {
    if (!(await step(`${label} one room of ${size}`, size, () => 'big')).ok) break;
    room = size;
  }
  return { triples, room };
}

async function partyRoute(store: Pick<Store, 'carriers'> | null): Promise<{ port: number; stop(): void }> {
  const port = await freePort();
  store?.carriers.add({ name: `party-${port}`, host: '127.0.0.1', port, prefix: PARTY });
  const sipp = await runParty(port, { behavior: 'answer', hangupAfterMs: 15_000 }, scratch, JOINS);
  await new Promise((r) => setTimeout(r, 300)); // sipp binds its port
  return { port, stop: () => sipp.kill() };
}

async function ringbase() {
  const platform = await startPlatform(eng, DID, hookUrl, { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_PREVIEW_RATE_LIMIT: '100000' });
  const { store, base } = platform;
  store.accounts.update(platform.accountId, { cpsCap: 1000 });
  const key = store.apiKeys.create(platform.accountId).key;
  const cap = await capacity('ringbase');
  const party = await partyRoute(store);
  const joins: number[] = [];
  for (let i = 0; i < JOINS; i++) {
    const started = performance.now();
    const res = await fetch(`${base}/v1/conferences/lat${i}/participants`, {
      method: 'POST', body: new URLSearchParams({ from: DID, to: PARTY }),
      headers: { authorization: `Bearer ${key}`, 'x-forwarded-proto': 'https' },
    });
    const p = (await res.json()) as { conference_sid: string; call_sid: string };
    while (store.conferences.participant(p.conference_sid, p.call_sid)?.status !== 'in-progress') await new Promise((r) => setImmediate(r));
    joins.push(performance.now() - started);
  }
  party.stop();
  await platform.stop();
  return { ...cap, joins };
}

async function bare() {
  const b = await startBareConference({ drachtio: eng.drachtio, freeswitch: eng.freeswitch });
  const cap = await capacity('bare   ');
  const party = await partyRoute(null);
  const joins: number[] = [];
  for (let i = 0; i < JOINS; i++) {
    const started = performance.now();
    await b.join(`sip:${PARTY}@127.0.0.1:${party.port}`, `lat${i}`);
    joins.push(performance.now() - started);
  }
  party.stop();
  b.stop();
  return { ...cap, joins };
}

try {
  console.log(`engines: ${bins.drachtio}, ${bins.freeswitch}; ${RATE} calls/s in, calls held ${HOLD_MS / 1000} s, loss limit ${LOSS_LIMIT * 100} %`);
  const ours = await ringbase();
  const base = await bare();
  const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : 'n/a');
  console.log('\n| figure | ringbase | bare srf+fsmrf | ratio |\n|---|---|---|---|');
  console.log(`| 3-party rooms held with < 0.1 % loss | ${ours.triples} | ${base.triples} | ${ratio(ours.triples, base.triples)} |`);
  console.log(`| participants in one room with < 0.1 % loss | ${ours.room} | ${base.room} | ${ratio(ours.room, base.room)} |`);
  console.log(`| join latency p50 (ms) | ${pct(ours.joins, 50).toFixed(0)} | ${pct(base.joins, 50).toFixed(0)} | ${ratio(pct(ours.joins, 50), pct(base.joins, 50))} |`);
  console.log(`| join latency p95 (ms) | ${pct(ours.joins, 95).toFixed(0)} | ${pct(base.joins, 95).toFixed(0)} | ${ratio(pct(ours.joins, 95), pct(base.joins, 95))} |`);
  console.log(`(steps tried: ${TRIPLES.join(', ')} rooms of 3; one room of ${ROOM.join(', ')}; the top step is the ceiling of this run, not of the engines)`);
} finally {
  sink.close();
  webhook.close();
  await eng.stop();
  rmSync(scratch, { recursive: true, force: true });
}
process.exit(0);
