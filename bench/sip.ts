// SIP figures on real drachtio-server + FreeSWITCH (found like the engine tests find them), loopback only:
//  1. INVITE → 200 OK (sipp's response time) and webhook reply → first audible RTP at the caller, median and
//     p95 over CALLS calls of a Say + Hangup document: once with a sentence new to every call (first time: speech
//     is synthesized), once with one sentence every call shares (rendered before that run), beside the bare
//     script's INVITE-reached-the-app → first audible RTP; and a third time with the sentence new to every call in
//     an account's vendor voice, rendered by a local stand-in OpenAI-compatible speech endpoint that answers at once
//     (the platform's part of a first-time vendor prompt: the request, the WAV written, the file played; a real
//     vendor adds its synthesis time);
//  2. the highest sustained calls per second with zero failed calls for that document, beside
//     bench/bare-say-hangup.ts (drachtio-srf + drachtio-fsmrf alone) under the same sipp load in the same run,
//     and this process's event-loop delay p99 during Ringbase's 30 CPS step.
// Run: npx tsx bench/sip.ts [calls=50]. Bounded: at most RATES.length steps of STEP_S seconds per system.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { engineBinariesOrExit, startLoadRig, startPlatform } from './platform.js';
import { freePort } from '../test/helpers/server-process.js';
import { inviteToOkMs, runCaller, runLoad } from '../test/engine-suite/real-sipp.js';
import { rtpRecorder } from '../test/engine-suite/real-rtp.js';
import { SENTENCE, startBare } from './bare-say-hangup.js';
import { reportRows, type BenchRow } from './row.js';
import { highestCleanRate } from './cps-steps.js';
import { startSpeechEndpoint } from '../test/helpers/speech-endpoint.js';

const CALLS = Math.max(20, Number(process.argv[2] ?? 50));
const LATENCY_CONCURRENCY = 5;
const RATES = [10, 20, 30, 40, 50, 60, 70, 80];
const STEP_S = 8;
const LOOP_RATE = 30;
const DID = '+15550001000';
/** Callers of the first-time set hear a sentence of their own, as long as the shared one. */
const FIRST_TIME = '+1555010';
const CACHED = '+1555020';
const BARE = '+1555030';
const VENDOR = '+1555040';
const documentFor = (from: string) => (from.startsWith(VENDOR)
  ? `<Response><Say voice="alloy">Hello, this is test ${from.slice(-4)}.</Say><Hangup/></Response>`
  : `<Response><Say>${from.startsWith(FIRST_TIME) ? `Hello, this is test ${from.slice(-4)}.` : SENTENCE}</Say><Hangup/></Response>`);

const bins = engineBinariesOrExit();

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)] ?? Number.NaN;
};
const fmt = (xs: number[]) => `median ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms (n=${xs.length})`;

// The customer's webhook: answers every call with Say + Hangup, and notes when each reply left (by caller number).
const replies = new Map<string, number>();
const webhook = createServer((req, res) => {
  let body = '';
  req.on('data', (d: Buffer) => { body += d.toString(); });
  req.on('end', () => {
    let from = '';
    try { from = String((JSON.parse(body) as { from?: string }).from); } catch { /* not JSON */ }
    res.writeHead(200, { 'content-type': 'application/xml' });
    res.end(documentFor(from), () => { replies.set(from, performance.timeOrigin + performance.now()); });
  });
});
await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/voice`;

// The load's media goes to a sink in its own process, out of the loop delay measured here (for the bare script too).
const rig = await startLoadRig(bins, 'sip');
const { eng, scratch, target, sink } = rig;


/** One caller per call, LATENCY_CONCURRENCY at a time; each hears the sentence and gets the platform's BYE. */
async function latency(prefix: string): Promise<{ inviteOk: number[]; replyToRtp: number[]; failed: number }> {
  const inviteOk: number[] = [];
  const replyToRtp: number[] = [];
  let failed = 0;
  let next = 0;
  await Promise.all(Array.from({ length: LATENCY_CONCURRENCY }, async () => {
    while (next < CALLS) {
      const from = `${prefix}${String(next++).padStart(4, '0')}`;
      const rtp = await rtpRecorder();
      const sipp = await runCaller({ target, localPort: await freePort(), rtpPort: rtp.port, from, to: DID, plan: { hangupAfterMs: 20_000 }, scratch, traceRtt: true });
      const code = await sipp.exited;
      rtp.close();
      const ok = inviteToOkMs(sipp, scratch);
      const reply = replies.get(from);
      const audible = rtp.firstAudibleAt();
      if (code !== 0 || ok === null || reply === undefined || audible === null) { failed++; continue; }
      inviteOk.push(ok);
      replyToRtp.push(audible - reply);
    }
  }));
  return { inviteOk, replyToRtp, failed };
}

/**
 * The highest clean rate (highestCleanRate), and this process's event-loop delay p99 (ms) during the LOOP_RATE step
 * (Ringbase runs in this process; the bare script too).
 */
async function sustainedCps(label: string): Promise<{ best: number; loopP99: number }> {
  let loopP99 = Number.NaN;
  const best = await highestCleanRate(label, RATES, STEP_S, async (rate, count) => {
    const loop = monitorEventLoopDelay({ resolution: 5 });
    loop.enable();
    const r = await runLoad({ target, localPort: await freePort(), rtpPort: sink.port, to: DID, rate, count, scratch });
    loop.disable();
    if (rate === LOOP_RATE) loopP99 = loop.percentile(99) / 1e6;
    return r;
  });
  return { best, loopP99 };
}

const p = (xs: number[], q: number) => (xs.length ? pct(xs, q) : Number.NaN);
function latencyRows(name: string, ours: number[], bare: number[], targetP95?: (bareP95: number) => { target: string; met: boolean }): BenchRow[] {
  const base = { unit: 'ms', better: 'lower' as const, baselineName: 'bare srf+fsmrf speak (INVITE at app → audio)' };
  const t = targetP95?.(p(bare, 95)) ?? {};
  return [
    { ...base, figure: `reply → first audible RTP, ${name}, p50`, value: p(ours, 50), baseline: p(bare, 50) },
    { ...base, figure: `reply → first audible RTP, ${name}, p95`, value: p(ours, 95), baseline: p(bare, 95), ...t },
  ];
}

try {
  console.log(`engines: ${bins.drachtio}, ${bins.freeswitch}`);
  const platform = await startPlatform(eng, DID, hookUrl);
  const first = await latency(FIRST_TIME);
  // The shared sentence is rendered before its run, as saving a number's IVR renders its prompts (a sentence a
  // webhook repeats is rendered on its second call instead).
  if (!(await platform.prompts?.prepare(SENTENCE, 'default'))) console.log('  (the shared sentence could not be rendered: its run speaks it live)');
  const cached = await latency(CACHED);
  const cleanups: Array<() => unknown> = [];
  const tts = await startSpeechEndpoint({ teardown: (fn) => cleanups.push(fn) });
  await platform.store.voiceSettings.set(platform.accountId, { baseUrl: tts.url, model: 'tts-1', voices: ['alloy'] });
  const vendor = await latency(VENDOR);
  for (const fn of cleanups) await fn();
  console.log(`INVITE → 200 OK:                          ${fmt(first.inviteOk)}`);
  console.log(`webhook reply → first audible RTP, first: ${fmt(first.replyToRtp)}`);
  console.log(`webhook reply → first audible RTP, cached: ${fmt(cached.replyToRtp)}`);
  console.log(`webhook reply → first audible RTP, vendor voice first: ${fmt(vendor.replyToRtp)}`);
  const failedLatency = first.failed + cached.failed + vendor.failed;
  if (failedLatency) console.log(`  (${failedLatency} of ${3 * CALLS} calls gave no figure)`);
  console.log('sustained Say + Hangup, zero failed calls:');
  const ours = await sustainedCps('ringbase');
  await platform.stop();
  const bare = await startBare({ drachtio: eng.drachtio, freeswitch: eng.freeswitch }, (from, at) => replies.set(from, at));
  const bareLatency = await latency(BARE);
  console.log(`bare INVITE at app → first audible RTP:   ${fmt(bareLatency.replyToRtp)}`);
  const baseline = await sustainedCps('bare srf+fsmrf');
  bare.stop();
  console.log(`ringbase ${ours.best} CPS, bare drachtio-srf + drachtio-fsmrf ${baseline.best} CPS (ratio ${baseline.best ? (ours.best / baseline.best).toFixed(2) : 'n/a'})`);
  reportRows([
    ...latencyRows('first time', first.replyToRtp, bareLatency.replyToRtp, (b) => {
      const v = p(first.replyToRtp, 95);
      return { target: '<= 1.05x bare p95', met: v <= 1.05 * b };
    }),
    ...latencyRows('cached prompt', cached.replyToRtp, bareLatency.replyToRtp, () => {
      const v = p(cached.replyToRtp, 95);
      return { target: '<= 80 ms', met: v <= 80 };
    }),
    ...latencyRows('vendor voice first time (stand-in endpoint)', vendor.replyToRtp, bareLatency.replyToRtp),
    {
      figure: 'sustained Say+Hangup CPS, zero failures', value: ours.best, baseline: baseline.best, baselineName: 'bare srf+fsmrf',
      unit: 'CPS', better: 'higher', target: '>= bare', met: ours.best >= baseline.best,
    },
    {
      figure: `event-loop delay p99 at ${LOOP_RATE} CPS`, value: ours.loopP99, baseline: baseline.loopP99, baselineName: 'bare srf+fsmrf process',
      unit: 'ms', better: 'lower', target: '<= 20 ms', met: ours.loopP99 <= 20,
    },
  ]);
} finally {
  webhook.close();
  await rig.stop();
}
process.exit(0);
