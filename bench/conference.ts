// Conference figures on real drachtio-server + FreeSWITCH, beside bare drachtio-srf + drachtio-fsmrf
// (bench/bare-conference.ts) on the same engines in the same run, loopback only:
//  1. capacity: sipp callers dial in at RATE calls/s and are put in 3-party rooms (Ringbase: a <Dial><Conference>
//     document from a webhook; bare: straight into the room), stepped up until a step loses >= 0.1 % of the
//     conference audio sent to the legs, or a leg gets none. Method: every caller's SDP names one UDP socket
//     (bench/rtp-sink.ts, in its own process), which talks back a tone on each leg (so FreeSWITCH decodes and mixes
//     every participant, the worst case) and counts per stream, over WINDOW_MS once every leg receives audio,
//     missing sequence numbers plus packets more than LATE_MS late against the stream's own RTP clock (what a
//     jitter buffer discards; an overloaded FreeSWITCH sends late rather than skipping). Then every call is ended
//     (Ringbase: the API ends each conference; bare: BYE on each call). Each step runs on Ringbase, then on bare,
//     one connected at a time, so a shared machine's background load falls on both alike; a near miss (under 10 %
//     loss) is tried once more before the system stops climbing;
//  2. the same for one room of growing size;
//  3. join latency: Ringbase from POST /v1/conferences/{name}/participants to the participant in-progress; bare from
//     originating the call to FreeSWITCH listing the member; p50/p95 over JOINS joins in rooms of three, to a sipp
//     party that answers at once. Both poll every 5 ms.
// Run: npx tsx bench/conference.ts. Bounded: at most the listed steps, each ~10-25 s per system; ~5 minutes in all.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { engineBinariesOrExit, startLoadRig, startPlatform } from './platform.js';
import { freePort } from '../test/helpers/server-process.js';
import { runLoad, runParty } from '../test/engine-suite/real-sipp.js';
import { startBareConference } from './bare-conference.js';
import { LATE_MS } from './rtp-sink.js';
import { reportRows } from './row.js';
import { PhaseDelays, type StepDelays } from './event-loop-phases.js';
import { carrierAtAddress } from '../src/store/carriers.js';

const TRIPLES = [50, 100, 125, 150];
// 250 is the most a Ringbase conference admits (maxParticipants, as Twilio), so the one-room ladder stops there.
const ROOM = [125, 250];
const JOINS = 30;
const RATE = 40;
const WINDOW_MS = 5_000;
const DID = '+15550001000';
const PARTY = '+15550009999';
const LOSS_LIMIT = 0.001;
const GROSS_LOSS = 0.1;

const bins = engineBinariesOrExit();

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.ceil((p / 100) * xs.length) - 1)] ?? Number.NaN;
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const triples = (i: number) => `r${Math.floor(i / 3)}`;

// The customer's webhook: each caller into the room the current step assigns by arrival order.
let arrivals = 0;
let roomOf = triples;
const webhook = createServer((req, res) => {
  req.resume();
  req.on('end', () => res.writeHead(200, { 'content-type': 'application/xml' })
    .end(`<Response><Dial><Conference beep="false">${roomOf(arrivals++)}</Conference></Dial></Response>`));
});
await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/voice`;

const rig = await startLoadRig(bins, 'conf');
const { eng, scratch, target, sink } = rig;

/** One system under test, started afresh for each step (see `ladder`). */
interface System {
  label: string;
  /** The rooms for the next incoming callers, by arrival order. */
  route(rooms: (i: number) => string): void;
  /** Ends every call (between steps). */
  endAll(): Promise<void>;
  /** Adds a participant in `room` dialling the sipp party on `partyPort`; resolves once it is in the room. */
  join(partyPort: number, room: string): Promise<void>;
  stop(): Promise<void>;
}

async function startRingbase(): Promise<System> {
  const platform = await startPlatform(eng, DID, hookUrl, { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_PREVIEW_RATE_LIMIT: '100000' });
  const { store, base } = platform;
  await store.accounts.update(platform.accountId, { cpsCap: 1000 });
  const headers = { authorization: `Bearer ${(await store.apiKeys.create(platform.accountId)).key}`, 'x-forwarded-proto': 'https' };
  const api = async <T>(route: string, form?: Record<string, string>): Promise<T> => {
    const res = await fetch(`${base}/v1${route}`, form ? { method: 'POST', body: new URLSearchParams(form), headers } : { headers });
    if (!res.ok) throw new Error(`${route}: ${res.status} ${await res.text()}`);
    return (await res.json()) as T;
  };
  const parties = new Set<number>();
  return {
    label: 'ringbase',
    route(rooms) {
      arrivals = 0;
      roomOf = rooms;
    },
    async endAll() {
      const sids: string[] = [];
      for (let cursor = ''; ;) {
        const page = await api<{ conferences: Array<{ sid: string }>; meta: { next_cursor: string | null } }>(
          `/conferences?status=in-progress&page_size=100${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`);
        sids.push(...page.conferences.map((c) => c.sid));
        if (!page.meta.next_cursor) break;
        cursor = page.meta.next_cursor;
      }
      // A room listed in progress may have ended since (its last party gone on an overloaded step): 409
      // conference_completed is the end this asked for.
      await Promise.all(sids.map((sid) => api(`/conferences/${sid}`, { status: 'completed' }).catch((err: Error) => {
        if (!/: 409 .*conference_completed/.test(err.message)) throw err;
      })));
    },
    async join(partyPort, room) {
      // The party is reached as a carrier's number, as a customer's participant would be.
      if (!parties.has(partyPort)) await store.carriers.add(`party-${partyPort}`, carrierAtAddress('127.0.0.1', partyPort, PARTY));
      parties.add(partyPort);
      const p = await api<{ conference_sid: string; call_sid: string }>(`/conferences/${room}/participants`, { from: DID, to: PARTY });
      while ((await store.conferences.participant(p.conference_sid, p.call_sid))?.status !== 'in-progress') await pause(5);
    },
    stop: () => platform.stop(),
  };
}

async function startBare(): Promise<System> {
  const b = await startBareConference({ drachtio: eng.drachtio, freeswitch: eng.freeswitch });
  return {
    label: 'bare',
    route: (rooms) => b.route(rooms),
    endAll: () => b.endAll(),
    join: (partyPort, room) => b.join(`sip:${PARTY}@127.0.0.1:${partyPort}`, room),
    async stop() { b.stop(); },
  };
}

const SYSTEMS = [startRingbase, startBare];

/** One step: `legs` callers in, wait until every leg receives audio, measure a window, end every call. */
/** A step's outcome: clean or not, the audio lost, and the event-loop delays (null for a step not run). */
interface StepResult { ok: boolean; loss: number; delays: StepDelays | null }

async function step(sys: System, what: string, legs: number, rooms: (i: number) => string): Promise<StepResult> {
  sys.route(rooms);
  await sink.reset();
  // The bench process hosts the system under test (the platform, or the bare script): its event-loop delay shows
  // when a step's failures come from that process starving rather than from FreeSWITCH. One histogram for the
  // whole step and one per phase: the callers arriving, the measured window, the calls ended.
  const loop = new PhaseDelays();
  loop.begin('arrivals');
  const load = runLoad({ target, localPort: await freePort(), rtpPort: sink.port, to: DID, rate: RATE, count: legs, scratch });
  const deadline = Date.now() + (legs / RATE) * 1000 + 5_000;
  while ((await sink.active()) < legs && Date.now() < deadline) await pause(200);
  const receiving = await sink.active();
  loop.begin('window');
  await sink.mark();
  await pause(WINDOW_MS);
  const m = await sink.loss();
  loop.begin('ending');
  await sys.endAll();
  await load;
  await sys.endAll(); // calls that joined after the first sweep (a step that did not get every leg up in time)
  const delays = loop.end();
  const ok = receiving >= legs && m.loss < LOSS_LIMIT;
  console.log(`  ${sys.label.padEnd(8)} ${what}: ${legs} legs, ${receiving} receiving, loss ${(m.loss * 100).toFixed(3)} % of ${m.packets} packets`
    + ` (${m.gaps} missing, ${m.late} late; ${(100 * m.audible / Math.max(1, m.packets)).toFixed(0)} % carry audio; event loop p99 ${delays.step.toFixed(0)} ms:`
    + ` ${Object.entries(delays.phases).map(([phase, ms]) => `${phase} ${ms.toFixed(0)}`).join(', ')})${ok ? '' : '  ← over'}`);
  await pause(500); // FreeSWITCH frees the step's channels
  return { ok, loss: m.loss, delays };
}

/**
 * Each step runs on Ringbase then on bare, one system connected at a time, so background load on a shared machine
 * falls on both alike; a system stops climbing at its first failed step (a near miss is tried twice). Returns each system's highest clean
 * step.
 */
async function ladder(steps: number[], what: (n: number) => string, legs: (n: number) => number, rooms: (i: number) => string): Promise<Ladder> {
  const best = SYSTEMS.map(() => 0);
  const climbing = SYSTEMS.map(() => true);
  const delays = new Map<string, Array<StepDelays | null>>();
  for (const n of steps) {
    delays.set(what(n), SYSTEMS.map(() => null));
    for (const [i, start] of SYSTEMS.entries()) {
      if (!climbing[i]) continue;
      // A near miss is tried once more: other work on a shared machine can spoil one attempt, and that is not
      // capacity. Gross loss (GROSS_LOSS or more) is overload, which a second attempt would only repeat.
      let r: StepResult = { ok: false, loss: 0, delays: null };
      for (let attempt = 0; attempt < 2 && !r.ok && r.loss < GROSS_LOSS; attempt++) {
        const sys = await start();
        r = await step(sys, what(n), legs(n), rooms);
        await sys.stop();
      }
      delays.get(what(n))![i] = r.delays;
      if (r.ok) best[i] = n;
      else climbing[i] = false;
    }
    if (!climbing.some(Boolean)) break;
  }
  return { best, delays };
}

/** Each system's highest clean step, and the event-loop delays of each step it ran (its last attempt), by step name. */
interface Ladder { best: number[]; delays: Map<string, Array<StepDelays | null>> }

/** JOINS joins in rooms of three to a sipp party that answers at once; ms from the request to in the room. */
async function joinLatency(start: () => Promise<System>): Promise<number[]> {
  const sys = await start();
  const port = await freePort();
  const party = await runParty(port, { behavior: 'answer', hangupAfterMs: 20_000 }, scratch, JOINS, 0);
  await pause(300); // sipp binds its port
  const joins: number[] = [];
  for (let i = 0; i < JOINS; i++) {
    const started = performance.now();
    await sys.join(port, `lat${Math.floor(i / 3)}`);
    joins.push(performance.now() - started);
  }
  await sys.endAll();
  party.kill();
  await sys.stop();
  return joins;
}

try {
  const began = Date.now();
  console.log(`engines: ${bins.drachtio}, ${bins.freeswitch}; ${RATE} calls/s in, ${WINDOW_MS / 1000} s windows, `
    + `loss limit ${LOSS_LIMIT * 100} % (missing or > ${LATE_MS} ms late)`);
  const tripleSteps = await ladder(TRIPLES, (n) => `${n} rooms of 3`, (n) => n * 3, triples);
  const [oursTriples, baseTriples] = tripleSteps.best;
  const roomSteps = await ladder(ROOM, (n) => `one room of ${n}`, (n) => n, () => 'big');
  const [oursRoom, baseRoom] = roomSteps.best;
  const [oursJoins, baseJoins] = [await joinLatency(startRingbase), await joinLatency(startBare)];
  const ours = { triples: oursTriples!, room: oursRoom!, joins: oursJoins };
  const base = { triples: baseTriples!, room: baseRoom!, joins: baseJoins };
  const ratio = (a: number, b: number) => (b ? (a / b).toFixed(2) : 'n/a');
  const ms = (xs: number[], p: number) => pct(xs, p).toFixed(0);
  console.log('\n| figure | ringbase | bare srf+fsmrf | ratio |\n|---|---|---|---|');
  console.log(`| 3-party rooms held with < 0.1 % loss | ${ours.triples} | ${base.triples} | ${ratio(ours.triples, base.triples)} |`);
  console.log(`| participants in one room with < 0.1 % loss | ${ours.room} | ${base.room} | ${ratio(ours.room, base.room)} |`);
  console.log(`| join latency p50 (ms) | ${ms(ours.joins, 50)} | ${ms(base.joins, 50)} | ${ratio(pct(ours.joins, 50), pct(base.joins, 50))} |`);
  console.log(`| join latency p95 (ms) | ${ms(ours.joins, 95)} | ${ms(base.joins, 95)} | ${ratio(pct(ours.joins, 95), pct(base.joins, 95))} |`);
  console.log(`(steps: ${TRIPLES.join(', ')} rooms of 3; one room of ${ROOM.join(', ')}; a system that holds the top step has`
    + ` not reached its ceiling; latency ratio is ringbase/bare, lower is better; ${((Date.now() - began) / 1000).toFixed(0)} s)`);
  // Event-loop p99 of each step both systems ran (issue 29: <= 1.5x the bare script's), whole step and phases; the
  // row is the step where Ringbase fares worst against bare.
  const phases = (d: StepDelays) => `${d.step.toFixed(0)} (${Object.values(d.phases).map((ms) => ms.toFixed(0)).join(' / ')})`;
  const both = [...tripleSteps.delays, ...roomSteps.delays].flatMap(([n, [r, b]]) => (r && b ? [{ n, r, b }] : []));
  console.log('\n| event-loop p99 (ms), whole step (arrivals / window / ending) | ringbase | bare srf+fsmrf | ratio |\n|---|---|---|---|');
  for (const { n, r, b } of both) console.log(`| ${n} | ${phases(r)} | ${phases(b)} | ${ratio(r.step, b.step)} |`);
  const worst = [...both].sort((x, y) => y.r.step / y.b.step - x.r.step / x.b.step)[0];
  const bare = 'bare drachtio-srf + drachtio-fsmrf, same engines';
  reportRows([
    // Answered legs holding two-way audio: three per room, each talking and hearing the other two.
    { figure: 'Concurrent answered legs holding audio with < 0.1 % loss (3-party rooms)', value: ours.triples * 3, baseline: base.triples * 3,
      baselineName: bare, unit: 'legs', better: 'higher', target: '>= 0.9x baseline', met: ours.triples >= 0.9 * base.triples },
    { figure: 'Participants in one room with < 0.1 % loss', value: ours.room, baseline: base.room, baselineName: bare, unit: 'legs', better: 'higher' },
    { figure: 'Conference join latency p95', value: Math.round(pct(ours.joins, 95)), baseline: Math.round(pct(base.joins, 95)), baselineName: bare, unit: 'ms', better: 'lower' },
    ...(worst ? [{
      figure: `Event-loop p99 over a ${RATE} calls/s conference step (${worst.n}: the worst step against bare)`, value: Math.round(worst.r.step),
      baseline: Math.round(worst.b.step), baselineName: bare, unit: 'ms', better: 'lower' as const, target: '<= 1.5x baseline', met: worst.r.step <= 1.5 * worst.b.step,
    }] : []),
  ]);
} finally {
  webhook.close();
  await rig.stop();
}
process.exit(0);
