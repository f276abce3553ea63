// Soak (issue 29): a bounded run of steady call load on real drachtio-server + FreeSWITCH, loopback only, watching
// for what grows. The platform runs in this process (bench/platform.ts), so its heap is read here after a full GC.
//  - Load: one sipp caller at RATE calls/s for MINUTES minutes to a number whose webhook (an HTTP app in this process)
//    answers each call by its arrival order: nine in ten a short IVR (<Say>, <Gather numDigits="1" timeout="1">
//    that times out, <Hangup/>); one in ten (arrival 3 of each ten) <Say> then <Record maxLength="2"> whose action
//    (a second webhook round trip) hangs up; one in ten (arrival 7) a conference of its own, joined through
//    <Dial><Conference> with a join status callback, after which the bench removes the participant through the
//    conference API HOLD_MS later. Every call is ended by the platform; a caller still up after CALLER_LIMIT_MS
//    hangs up itself, and that call counts as failed.
//  - Before the load, 20 s of the same calls (WARMUP: connections, caches and V8's compiled code made on first use
//    are there at the start), then the calls drain and the first sample is taken. Samples every minute (a run under
//    9 minutes: nine in the load), then again once the load's calls have drained and idle keep-alive connections
//    closed: RSS and heap used after a full GC of this process; its open file descriptors (/proc/self/fd); its pending
//    timers (process.getActiveResourcesInfo() Timeouts); SQLite's page_count (PostgreSQL: the database's size in
//    blocks); FreeSWITCH's channels (`show channels count` over the event socket); drachtio-server's stable dialogs
//    (its Prometheus scrape, enabled by DRACHTIO_PROMETHEUS_SCRAPE_PORT: two a call, the caller's and FreeSWITCH's;
//    a gauge drachtio updates every few tens of seconds, so it lags); calls not yet ended in the store; and the two
//    engines' RSS (/proc/<pid>/status). Pending timers count only timers that hold the process open (unref'd ones
//    are not listed by node).
//  - Reported: calls placed, completed and failed (sipp's failures and its own hang-ups; the store's calls not
//    completed, recordings missing, conference joins or removals missing: the larger of the two counts); each
//    metric's first and last sample and least-squares slope per minute over the load's samples; heap and RSS slopes
//    also as % of the first sample per 10 minutes, within noise when no more than twice their standard error; file
//    descriptors, FreeSWITCH channels, drachtio dialogs and timers at the end against the start.
// Run: npx tsx bench/soak.ts [minutes=3] [callsPerSecond=10]. Bounded: the load, at most DRAIN_MS of draining, and a
// hard limit after which the process exits (its engines, sipp and the RTP sink are killed with it).
import { createServer, get, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';
import { freePort } from '../test/helpers/server-process.js';
import { runLoad, type LoadResult } from '../test/engine-suite/real-sipp.js';
import { eslApi } from '../src/engine/drachtio/esl-probe.js';
import { engineBinariesOrExit, startLoadRig, startPlatform } from './platform.js';
import { reportRows, type BenchRow } from './row.js';
import { onBackend } from './backend.js';

const MINUTES = Number(process.argv[2] ?? 3);
const RATE = Number(process.argv[3] ?? 10);
const CALLS = Math.max(10, Math.round(MINUTES * 60 * RATE));
const LOAD_MS = (CALLS / RATE) * 1000;
const SAMPLE_MS = Math.min(60_000, Math.max(5_000, LOAD_MS / 9));
/** Calls before the first sample, at the full rate: connections, caches and V8's compiled code made on first use are there at the start. */
const WARMUP = Math.max(10, Math.round((RATE * 20) / 10) * 10);
const HOLD_MS = 2_000;
const CALLER_LIMIT_MS = 20_000;
const DRAIN_MS = 60_000;
/** Idle keep-alive connections (webhooks, the API, node's server default 5 s) close within this. */
const SETTLE_MS = 8_000;
const HARD_LIMIT_MS = LOAD_MS + CALLER_LIMIT_MS + DRAIN_MS + 3 * 60_000;
const DID = '+15550001000';
const SENTENCE = 'Thanks for calling.';
const RECORD_AT = 3;
const CONFERENCE_AT = 7;

const bins = engineBinariesOrExit();
if (!(MINUTES > 0 && RATE > 0)) throw new Error('usage: npx tsx bench/soak.ts [minutes > 0] [callsPerSecond > 0]');

setTimeout(() => {
  console.log(`soak: stopped at its hard limit (${(HARD_LIMIT_MS / 60_000).toFixed(1)} min)`);
  process.exit(1); // engines, sipp and the sink are killed on exit (helpers/engines.ts killOnExit)
}, HARD_LIMIT_MS).unref();

/** A full GC: node's own when started with --expose-gc (bench/run.ts does), else exposed now. */
const fullGc: () => void = typeof globalThis.gc === 'function' ? globalThis.gc
  : (v8.setFlagsFromString('--expose-gc'), runInNewContext('gc') as () => void);

type Kind = 'ivr' | 'record' | 'conference';
interface Tally { ivr: number; record: number; conference: number; recorded: number; joined: number; removed: number; removeFailed: number }
const tally = (): Tally => ({ ivr: 0, record: 0, conference: 0, recorded: 0, joined: 0, removed: 0, removeFailed: 0 });
let counts = tally();
let arrivals = 0;
const kindOf = (n: number): Kind => (n % 10 === RECORD_AT ? 'record' : n % 10 === CONFERENCE_AT ? 'conference' : 'ivr');

const body = (req: IncomingMessage) => new Promise<string>((resolve) => {
  let text = '';
  req.on('data', (d: Buffer) => { text += d.toString(); });
  req.on('end', () => resolve(text));
});

// The customer's app: the number's webhook, the Record's action and the conferences' join callbacks.
let removeParticipant: (conference: string, call: string) => Promise<boolean> = async () => false;
const webhook = createServer((req, res) => void body(req).then((text) => {
  const reply = (xml: string) => res.writeHead(200, { 'content-type': 'application/xml' }).end(`<Response>${xml}</Response>`);
  if (req.url === '/recorded') {
    counts.recorded++;
    return reply('<Hangup/>');
  }
  if (req.url === '/conference') {
    const form = new URLSearchParams(text);
    res.writeHead(204).end();
    if (form.get('StatusCallbackEvent') !== 'participant-join') return;
    counts.joined++;
    setTimeout(() => void removeParticipant(form.get('ConferenceSid')!, form.get('CallSid')!)
      .then((ok) => { if (ok) counts.removed++; else counts.removeFailed++; }), HOLD_MS);
    return;
  }
  const n = arrivals++;
  const kind = kindOf(n);
  counts[kind]++;
  if (kind === 'ivr') return reply(`<Say>${SENTENCE}</Say><Gather numDigits="1" timeout="1"/><Hangup/>`);
  if (kind === 'record') return reply(`<Say>${SENTENCE}</Say><Record maxLength="2" playBeep="false" action="${hookBase}/recorded"/>`);
  return reply(`<Dial><Conference beep="false" statusCallback="${hookBase}/conference" statusCallbackEvent="join">soak-${n}</Conference></Dial>`);
}));
await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
const hookBase = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}`;

const metricsPort = await freePort();
// drachtio-server takes its options from the environment too: its Prometheus scrape, for the dialog count.
process.env.DRACHTIO_PROMETHEUS_SCRAPE_PORT = `127.0.0.1:${metricsPort}`;
const rig = await startLoadRig(bins, 'soak');
const { eng, scratch, target, sink } = rig;

/** drachtio-server's stable dialogs (null when its scrape does not answer or has no such gauge yet). */
function drachtioDialogs(): Promise<number | null> {
  return new Promise((resolve) => {
    const req = get({ host: '127.0.0.1', port: metricsPort, path: '/metrics', agent: false, timeout: 3_000 }, (res) => void body(res).then((text) => {
      const values = [...text.matchAll(/^drachtio_stable_dialogs(?:\{[^}]*\})?\s+(\S+)/gm)].map((m) => Number(m[1]));
      resolve(values.length ? values.reduce((a, b) => a + b, 0) : 0);
    }));
    req.on('error', () => resolve(null));
    req.on('timeout', () => req.destroy());
  });
}

/** The engine process started with `arg` (its config under the engines' dir), found once in /proc; null if none. */
function enginePid(arg: string): number | null {
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try { if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0').includes(arg)) return Number(entry); } catch { /* gone meanwhile */ }
  }
  return null;
}
const pids = { freeswitch: enginePid(path.join(eng.dir, 'freeswitch')), drachtio: enginePid(path.join(eng.dir, 'drachtio.conf.xml')) };
/** An engine's resident memory (MB), from /proc/<pid>/status. */
function rssOf(pid: number | null): number | null {
  if (pid === null) return null;
  try { return Number(/^VmRSS:\s*(\d+)\s*kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1]) / 1024; } catch { return null; }
}

interface Sample {
  atMin: number; phase: 'start' | 'load' | 'end'; rssMb: number; heapMb: number; fds: number; timers: number; pages: number; fsChannels: number;
  dialogs: number | null; liveCalls: number; fsRssMb: number | null; drachtioRssMb: number | null;
}
const METRICS = [
  ['rssMb', 'RSS (MB)'], ['heapMb', 'heap after GC (MB)'], ['fds', 'open file descriptors'], ['timers', 'pending timers'],
  ['pages', 'database pages'], ['fsChannels', 'FreeSWITCH channels'], ['dialogs', 'drachtio stable dialogs'], ['liveCalls', 'calls not ended (store)'],
  ['fsRssMb', 'FreeSWITCH RSS (MB)'], ['drachtioRssMb', 'drachtio RSS (MB)'],
] as const;

try {
  console.log(`engines: ${bins.drachtio}, ${bins.freeswitch}; ${CALLS} calls at ${RATE}/s (${MINUTES} min), a sample every ${SAMPLE_MS / 1000} s`);
  const platform = await startPlatform(eng, DID, `${hookBase}/voice`, { RINGBASE_TRUSTED_PROXIES: '127.0.0.1' });
  const { store, base } = platform;
  const headers = { authorization: `Bearer ${(await store.apiKeys.create(platform.accountId)).key}`, 'x-forwarded-proto': 'https' };
  removeParticipant = async (conference, call) => {
    const res = await fetch(`${base}/v1/conferences/${conference}/participants/${call}`, { method: 'DELETE', headers }).catch(() => null);
    await res?.body?.cancel();
    // fetch keeps an entry per request in the performance timeline (up to 250): this process's heap is measured.
    performance.clearResourceTimings();
    return res?.status === 204;
  };
  if (!(await platform.prompts?.prepare(SENTENCE, 'default'))) console.log('  (the sentence could not be rendered ahead: calls speak it live)');
  const count = async (sql: string): Promise<number> => Number((await store.sql.one<{ n: number | string }>(sql))?.n ?? Number.NaN);
  const pagesSql = store.sql.dialect === 'sqlite' ? 'PRAGMA page_count' : "SELECT pg_database_size(current_database()) / current_setting('block_size')::int AS n";
  const { host: fsHost, port: eslPort, password: eslPassword } = eng.freeswitch;
  const channels = async () => Number(/(\d+)\s+total/.exec(await eslApi(fsHost, eslPort, eslPassword, 'show channels count'))?.[1] ?? Number.NaN);
  const liveCalls = () => count('SELECT COUNT(*) AS n FROM calls WHERE ended_at IS NULL');
  let loadStart = 0;

  const sample = async (phase: Sample['phase']): Promise<Sample> => {
    // Twice, a moment apart: V8 gives freed pages back after a GC, so RSS read at once still holds the garbage.
    fullGc();
    await new Promise((r) => setTimeout(r, 200));
    fullGc();
    const mem = process.memoryUsage();
    // Read before this sample opens anything (the event socket, the scrape) or sets a timer.
    const fds = readdirSync('/proc/self/fd').length;
    const timers = process.getActiveResourcesInfo().filter((r) => r === 'Timeout').length;
    const pages = store.sql.dialect === 'sqlite'
      ? Number((await store.sql.one<{ page_count: number }>(pagesSql))?.page_count ?? Number.NaN) : await count(pagesSql);
    return {
      atMin: loadStart ? (Date.now() - loadStart) / 60_000 : 0, phase, rssMb: mem.rss / 2 ** 20, heapMb: mem.heapUsed / 2 ** 20, fds, timers, pages,
      fsChannels: await channels(), dialogs: await drachtioDialogs(), liveCalls: await liveCalls(), fsRssMb: rssOf(pids.freeswitch), drachtioRssMb: rssOf(pids.drachtio),
    };
  };

  /**
   * Waits (at most DRAIN_MS) until the store has no call up and FreeSWITCH's channels and drachtio's dialogs are down
   * to `to`'s (drachtio updates its gauge every few seconds, not at each dialog); then idle connections close.
   */
  const drain = async (to: { fsChannels: number; dialogs: number | null }) => {
    const deadline = Date.now() + DRAIN_MS;
    const busy = async () => (await liveCalls()) > 0 || (await channels()) > to.fsChannels || ((await drachtioDialogs()) ?? 0) > (to.dialogs ?? 0);
    while (Date.now() < deadline && await busy()) await new Promise((r) => setTimeout(r, 500));
    await new Promise((r) => setTimeout(r, SETTLE_MS));
  };

  const load = (calls: number, rate: number): Promise<LoadResult> => freePort().then((localPort) => runLoad({
    target, localPort, rtpPort: sink.port, to: DID, rate, count: calls, scratch, hangupAfterMs: CALLER_LIMIT_MS,
  }));
  /** Calls the caller hung up itself (its BYE sent, on sipp's last screen): the platform left them up too long. */
  const callerHangups = (r: LoadResult) => Number([...r.output.matchAll(/^\s*BYE\s*-+>\s*(\d+)/gm)].at(-1)?.[1] ?? 0);

  const warm = await load(WARMUP, RATE);
  console.log(`warm-up: ${warm.successful}/${WARMUP} completed, ${warm.failed} failed, ${callerHangups(warm)} hung up by the caller`);
  await drain({ fsChannels: 0, dialogs: 0 });
  const notCompletedSql = "SELECT COUNT(*) AS n FROM calls WHERE direction = 'inbound' AND status <> 'completed'";
  const warmCalls = await count("SELECT COUNT(*) AS n FROM calls WHERE direction = 'inbound'");
  const warmNotCompleted = await count(notCompletedSql);
  const warmRecordings = await count("SELECT COUNT(*) AS n FROM recordings WHERE status = 'completed'");
  counts = tally();

  // SOAK_HEAP_SNAPSHOTS=<dir>: heap snapshots at the start, at the first sample past the load's middle and at the end,
  // to compare (what grew): objects made between the first two and still there at the third are what the load keeps.
  // Writing one holds the process's RSS up by about the snapshot's size for the rest of the run: RSS is not comparable then.
  const snapshotDir = process.env.SOAK_HEAP_SNAPSHOTS;
  const snapshot = (phase: string) => {
    if (snapshotDir) console.log(`heap snapshot: ${v8.writeHeapSnapshot(path.join(snapshotDir, `soak-${phase}.heapsnapshot`))}`);
  };
  const samples: Sample[] = [await sample('start')];
  snapshot('start');
  loadStart = Date.now();
  let sampling = Promise.resolve();
  let midTaken = false;
  const timer = setInterval(() => {
    sampling = sampling.then(async () => {
      const s = await sample('load');
      samples.push(s);
      if (!midTaken && s.atMin >= MINUTES / 2) { midTaken = true; snapshot('mid'); }
    });
  }, SAMPLE_MS);
  const result = await load(CALLS, RATE);
  clearInterval(timer);
  await sampling;
  const loadMin = (Date.now() - loadStart) / 60_000;
  await drain(samples[0]!);
  samples.push(await sample('end'));
  snapshot('end');

  // Outcome: sipp's view, and the platform's (store rows and the webhook's counts).
  const hungUp = callerHangups(result);
  const sippFailed = Number.isNaN(result.successful) ? CALLS : CALLS - result.successful + hungUp;
  const inbound = (await count("SELECT COUNT(*) AS n FROM calls WHERE direction = 'inbound'")) - warmCalls;
  const notCompleted = (await count(notCompletedSql)) - warmNotCompleted;
  const recordings = (await count("SELECT COUNT(*) AS n FROM recordings WHERE status = 'completed'")) - warmRecordings;
  const arrived = counts.ivr + counts.record + counts.conference;
  const platformFailed = Math.max(0, CALLS - inbound) + Math.max(0, inbound - arrived) + notCompleted + Math.max(0, counts.record - recordings)
    + Math.max(0, counts.record - counts.recorded) + Math.max(0, counts.conference - counts.removed);
  const failed = Math.max(sippFailed, platformFailed);
  console.log(`load: ${CALLS} calls in ${loadMin.toFixed(2)} min; sipp: ${result.successful} completed, ${result.failed} failed, ${hungUp} hung up by the caller`);
  console.log(`  platform: ${inbound} inbound calls stored (${notCompleted} not completed); webhook: ${counts.ivr} IVR, ${counts.record} record `
    + `(${counts.recorded} actions, ${recordings} recordings), ${counts.conference} conference `
    + `(${counts.joined} joined, ${counts.removed} removed, ${counts.removeFailed} removals failed)`);
  console.log(`  calls placed ${CALLS}, completed ${CALLS - failed}, failed ${failed}`);

  // Least squares over the load's samples (minutes since the load began).
  const loadSamples = samples.filter((s) => s.phase === 'load');
  const fit = (key: (typeof METRICS)[number][0]) => {
    const pts = loadSamples.map((s) => [s.atMin, s[key]] as const).filter((p): p is readonly [number, number] => p[1] !== null && Number.isFinite(p[1]));
    const n = pts.length;
    if (n < 3) return { slope: Number.NaN, se: Number.NaN };
    const mx = pts.reduce((a, p) => a + p[0], 0) / n;
    const my = pts.reduce((a, p) => a + p[1], 0) / n;
    const sxx = pts.reduce((a, p) => a + (p[0] - mx) ** 2, 0);
    const slope = pts.reduce((a, p) => a + (p[0] - mx) * (p[1] - my), 0) / sxx;
    const ssr = pts.reduce((a, p) => a + (p[1] - my - slope * (p[0] - mx)) ** 2, 0);
    return { slope, se: Math.sqrt(ssr / (n - 2) / sxx) };
  };
  const f = (v: number | null, d = 1) => (v === null || !Number.isFinite(v) ? '—' : v.toFixed(d));
  console.log(`\n| sample | min | ${METRICS.map(([, label]) => label).join(' | ')} |\n|${'---|'.repeat(METRICS.length + 2)}`);
  for (const s of samples) console.log(`| ${s.phase} | ${f(s.atMin, 2)} | ${METRICS.map(([k]) => f(s[k], k.endsWith('Mb') ? 1 : 0)).join(' | ')} |`);
  const first = samples[0]!;
  const last = samples.at(-1)!;
  const fits = Object.fromEntries(METRICS.map(([k]) => [k, fit(k)])) as Record<(typeof METRICS)[number][0], { slope: number; se: number }>;
  console.log('');
  for (const [k, label] of METRICS) {
    const { slope, se } = fits[k];
    const pct = k.endsWith('Mb') ? `, ${f((slope * 10 / (first[k] as number)) * 100, 2)} % of the first per 10 min` : '';
    console.log(`${label}: first ${f(first[k], 1)}, last ${f(last[k], 1)}, slope ${f(slope, 3)} ± ${f(se, 3)} per min over ${loadSamples.length} load samples${pct}`);
  }

  const name = (what: string) => onBackend(`soak ${MINUTES} min at ${RATE} CPS: ${what}`);
  const slopeRow = (k: 'heapMb' | 'rssMb' | 'fsRssMb', what: string): BenchRow => {
    const { slope, se } = fits[k];
    return {
      figure: name(`${what} slope (first ${f(first[k])} MB, ${f(slope, 3)} ± ${f(se, 3)} MB/min)`),
      value: (slope * 10 / (first[k] ?? Number.NaN)) * 100, baseline: null, baselineName: '',
      unit: '% per 10 min', better: 'lower', target: 'within noise (<= 2 standard errors)', met: Math.abs(slope) <= 2 * se,
    };
  };
  const backRow = (k: 'fds' | 'fsChannels' | 'dialogs' | 'timers', what: string, unit: string): BenchRow => ({
    figure: name(`${what} at the end`), value: last[k] ?? Number.NaN, baseline: first[k], baselineName: 'at the start', unit, better: 'lower',
    target: 'back to the start', met: last[k] !== null && first[k] !== null && last[k]! <= first[k]!,
  });
  reportRows([
    { figure: name('calls placed'), value: CALLS, baseline: null, baselineName: '', unit: 'calls', better: 'higher' },
    { figure: name('failed calls'), value: failed, baseline: null, baselineName: '', unit: 'calls', better: 'lower', target: '0', met: failed === 0 },
    slopeRow('heapMb', 'heap after GC'),
    slopeRow('rssMb', 'RSS'),
    slopeRow('fsRssMb', 'FreeSWITCH RSS'),
    backRow('fds', 'open file descriptors', 'fds'),
    backRow('fsChannels', 'FreeSWITCH channels', 'channels'),
    backRow('dialogs', 'drachtio stable dialogs', 'dialogs'),
    backRow('timers', 'pending timers', 'timers'),
    {
      figure: name(`database pages per 1000 calls (${f(first.pages, 0)} at the start)`),
      value: ((last.pages - first.pages) / CALLS) * 1000, baseline: null, baselineName: '',
      unit: 'pages', better: 'lower',
    },
  ]);
  await platform.stop();
} finally {
  webhook.close();
  await rig.stop();
}
process.exit(0);
