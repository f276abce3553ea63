// Media stream figures on real drachtio-server + FreeSWITCH, loopback only:
//  1. round trip: a sipp call whose RTP is a probe caller in this process (silence, and every 250 ms one loud
//     20 ms frame); Ringbase runs <Connect><Stream> to an echo peer here, and each probe's round trip is the time
//     from sending it to hearing it back (caller RTP in -> FreeSWITCH -> RTP gateway -> WebSocket peer -> back).
//     Beside it, a bare RTP loop: drachtio-srf + drachtio-fsmrf answering the same call with FreeSWITCH's own
//     `echo` application (no gateway, no WebSocket), measured the same way, one system connected at a time;
//  2. clear: the peer queues 2 s of tone and a mark, then `clear` 500 ms into it; the time from sending `clear`
//     to the last loud frame the caller hears, and whether the marks came back in order;
//  3. load: STREAMS sipp callers at once, each streamed to the peer, which queues 20 s of tone per stream at its
//     start; the caller side is an RTP sink (its own process) answering every packet with one of its own tone.
//     Over WINDOW_MS: media frames per stream at the peer (expected WINDOW_MS / 20), what the callers lose of the
//     peer's paced audio (missing + late packets, bench/rtp-sink.ts), and this process's event-loop delay (it
//     hosts the platform and the peer).
// Run: npx tsx bench/streams.ts. About a minute.
import { createSocket, type Socket } from 'node:dgram';
import { createServer } from 'node:http';
import { mkdtempSync, rmSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { createRequire } from 'node:module';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import Srf from 'drachtio-srf';
import { WebSocketServer, type WebSocket } from 'ws';
import { engineBinariesOrExit, startPlatform } from './platform.js';
import { RtpSink } from './rtp-sink.js';
import { startEngines } from '../test/helpers/engines.js';
import { freePort } from '../test/helpers/server-process.js';
import { hangUpCaller, runCaller, runLoad } from '../test/engine-suite/real-sipp.js';
import { toneAlaw } from '../test/engine-suite/real-rtp.js';
import { encodeUlaw } from '../src/media/mulaw.js';
import { reportRows } from './row.js';

const DID = '+15550001000';
const PROBES = 40;
const PROBE_EVERY_MS = 250;
const CLEARS = 10;
const STREAMS = 50;
const WINDOW_MS = 5_000;

const bins = engineBinariesOrExit();

const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));
const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))]! : Number.NaN; };
const fmt = (xs: number[]) => `p50 ${pct(xs, 50).toFixed(1)} ms, p95 ${pct(xs, 95).toFixed(1)} ms, max ${Math.max(...xs).toFixed(1)} ms (n=${xs.length})`;

/** A-law at -24 dBFS or louder anywhere in the payload (as bench/rtp-sink.ts judges audible). */
const loud = (payload: Buffer) => payload.some((b) => ((b ^ 0x55) & 0x70) >= 0x40);

/** The far end of one sipp call: sends 20 ms A-law frames to where FreeSWITCH's audio comes from; probes are timed. */
class ProbeCaller {
  readonly rtts: number[] = [];
  lastLoudAt = 0;
  #peer: { address: string; port: number } | null = null;
  #pending: number[] = [];
  #probe = false;
  #seq = 0;
  #ts = 0;
  #timer: NodeJS.Timeout | null = null;
  private constructor(readonly socket: Socket) {
    socket.on('message', (msg, from) => {
      if (!this.#peer) { this.#peer = { address: from.address, port: from.port }; this.#start(); }
      if (msg.length <= 12 || (msg[1]! & 0x7f) !== 8) return;
      if (!loud(msg.subarray(12))) return;
      const now = performance.now();
      this.lastLoudAt = now;
      const sent = this.#pending.shift();
      if (sent !== undefined) this.rtts.push(now - sent);
    });
  }

  static async open(): Promise<ProbeCaller> {
    for (;;) {
      const s = createSocket('udp4');
      await new Promise<void>((r) => s.bind(0, '127.0.0.1', r));
      if (s.address().port % 2 === 0) return new ProbeCaller(s);
      s.close();
    }
  }

  get port(): number { return this.socket.address().port; }
  get connected(): boolean { return this.#peer !== null; }

  /** The next frame sent is a probe. */
  probe(): void { this.#probe = true; }
  /** Forgets probes that never came back (and the loud audio heard so far). */
  reset(): void { this.#pending = []; this.lastLoudAt = 0; }

  #start(): void {
    const silence = Buffer.alloc(160, 0xd5);
    const tone = toneAlaw(1000, 20, 0.5);
    const started = performance.now();
    let n = 0;
    const tick = () => {
      const header = Buffer.alloc(12);
      header[0] = 0x80; header[1] = 8;
      header.writeUInt16BE(this.#seq++ & 0xffff, 2);
      header.writeUInt32BE((this.#ts += 160) >>> 0, 4);
      header.writeUInt32BE(0x5eed, 8);
      const probe = this.#probe;
      this.#probe = false;
      if (probe) this.#pending.push(performance.now());
      this.socket.send(Buffer.concat([header, probe ? tone : silence]), this.#peer!.port, this.#peer!.address);
      this.#timer = setTimeout(tick, Math.max(0, started + ++n * 20 - performance.now()));
    };
    tick();
  }

  close(): void { if (this.#timer) clearTimeout(this.#timer); this.socket.close(); }
}

/** The WebSocket peer: echoes the caller (a mark every second) unless told to play a burst for the clear test. */
class Peer {
  readonly marks: string[] = [];
  readonly frames = new Map<string, number>();
  echo = true;
  /**
   * Queues this much tone at each start (load): the platform paces it out at 50 frames/s, the RTP sink answers
   * each packet, and so the caller's audio comes back at the full rate (the sink only talks when talked to).
   */
  primeMs = 0;
  #wss!: WebSocketServer;
  #latest: { ws: WebSocket; sid: string } | null = null;

  async start(): Promise<number> {
    this.#wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
    await new Promise((r) => this.#wss.once('listening', r));
    this.#wss.on('connection', (ws) => {
      let sid = '';
      let echoed = 0;
      ws.on('message', (data) => {
        const msg = JSON.parse(data.toString());
        if (msg.event === 'start') {
          sid = msg.streamSid;
          this.#latest = { ws, sid };
          this.frames.set(sid, 0);
          if (this.primeMs > 0) this.burst(this.primeMs, 'primed');
        }
        if (msg.event === 'mark') this.marks.push(msg.mark.name);
        if (msg.event !== 'media') return;
        this.frames.set(sid, (this.frames.get(sid) ?? 0) + 1);
        if (!this.echo) return;
        ws.send(JSON.stringify({ event: 'media', streamSid: sid, media: { payload: msg.media.payload } }));
        if (++echoed % 50 === 0) ws.send(JSON.stringify({ event: 'mark', streamSid: sid, mark: { name: `echo-${echoed / 50}` } }));
      });
    });
    return (this.#wss.address() as AddressInfo).port;
  }

  get streams(): number { return this.frames.size; }

  /** Queues `ms` of a loud tone and a mark on the latest stream. */
  burst(ms: number, mark: string): void {
    const { ws, sid } = this.#latest!;
    const samples = Float32Array.from({ length: ms * 8 }, (_, i) => 0.5 * Math.sin((2 * Math.PI * 800 * i) / 8000));
    const audio = encodeUlaw(samples);
    for (let at = 0; at < audio.length; at += 160) ws.send(JSON.stringify({ event: 'media', streamSid: sid, media: { payload: audio.subarray(at, at + 160).toString('base64') } }));
    ws.send(JSON.stringify({ event: 'mark', streamSid: sid, mark: { name: mark } }));
  }

  clear(): number {
    const { ws, sid } = this.#latest!;
    const at = performance.now();
    ws.send(JSON.stringify({ event: 'clear', streamSid: sid }));
    return at;
  }

  closeLatest(): void { this.#latest?.ws.close(); }
  close(): void { for (const c of this.#wss.clients) c.terminate(); this.#wss.close(); }
}

const eng = await startEngines(bins, { sessionsPerSecond: 1000 });
const scratch = mkdtempSync(path.join(tmpdir(), 'ringbase-bench-streams-'));
const target = `127.0.0.1:${eng.drachtio.sipPort}`;
const peer = new Peer();
const peerPort = await peer.start();
let markup = '';
const webhook = createServer((_req, res) => { res.setHeader('content-type', 'application/xml'); res.end(markup); });
await new Promise<void>((r) => webhook.listen(0, '127.0.0.1', r));
const hookUrl = `http://127.0.0.1:${(webhook.address() as AddressInfo).port}/voice`;
const streamMarkup = `<Response><Say>Hi</Say><Connect><Stream url="ws://127.0.0.1:${peerPort}/bench"/></Connect></Response>`;

/** One probed call through whatever system is connected; returns the caller once its audio flows. */
async function probedCall(): Promise<{ caller: ProbeCaller; hangup: () => Promise<void> }> {
  const caller = await ProbeCaller.open();
  const localPort = await freePort();
  const sipp = await runCaller({ target, localPort, rtpPort: caller.port, from: '+15557770001', to: DID, plan: { hangupAfterMs: 120_000 }, scratch });
  while (!caller.connected) await pause(20);
  // The greeting (Ringbase) or the first tone (bare) is over before probing starts.
  await pause(1_500);
  caller.reset();
  return { caller, hangup: async () => { await hangUpCaller(sipp, localPort); caller.close(); } };
}

async function roundTrips(caller: ProbeCaller): Promise<number[]> {
  for (let i = 0; i < PROBES; i++) { caller.probe(); await pause(PROBE_EVERY_MS); }
  await pause(500);
  return [...caller.rtts];
}

// 1 and 2: Ringbase.
markup = streamMarkup;
const platform = await startPlatform(eng, DID, hookUrl);
const rb = await probedCall();
const rbRtts = await roundTrips(rb.caller);
peer.echo = false;
await pause(200);
const clears: number[] = [];
peer.marks.length = 0;
for (let i = 0; i < CLEARS; i++) {
  rb.caller.reset();
  peer.burst(2_000, `burst-${i}`);
  await pause(500);
  const clearedAt = peer.clear();
  await pause(400);
  clears.push(rb.caller.lastLoudAt - clearedAt);
}
const marksInOrder = peer.marks.join() === Array.from({ length: CLEARS }, (_, i) => `burst-${i}`).join();
await rb.hangup();
peer.echo = true;
await pause(500);

// 3: STREAMS at once.
const sink = await RtpSink.open();
peer.frames.clear();
peer.echo = false;
peer.primeMs = 20_000;
const loop = monitorEventLoopDelay({ resolution: 10 });
const load = runLoad({ target, localPort: await freePort(), rtpPort: sink.port, to: DID, rate: 10, count: STREAMS, scratch });
const deadline = Date.now() + 30_000;
while ((peer.streams < STREAMS || (await sink.active()) < STREAMS) && Date.now() < deadline) await pause(100);
if (Date.now() >= deadline) console.log(`only ${peer.streams} streams started, ${await sink.active()} callers hear audio`);
await pause(1_500);
const before = new Map(peer.frames);
await sink.mark();
loop.enable();
await pause(WINDOW_MS);
loop.disable();
const perStream = [...peer.frames].filter(([sid]) => before.has(sid)).map(([sid, n]) => n - before.get(sid)!);
const loss = await sink.loss();
await load;
sink.close();
await platform.stop();

// 1: the bare RTP loop.
const bare = new Srf();
bare.connect({ host: eng.drachtio.host, port: eng.drachtio.port, secret: eng.drachtio.secret });
await new Promise<void>((resolve, reject) => bare.once('connect', (err: Error | null) => (err ? reject(err) : resolve())));
const Mrf = createRequire(import.meta.url)('drachtio-fsmrf') as new (srf: Srf) => { connect(o: object): Promise<any> };
const ms = await new Mrf(bare).connect({ address: eng.freeswitch.host, port: eng.freeswitch.port, secret: eng.freeswitch.password, listenAddress: '127.0.0.1' });
bare.invite(async (req, res) => {
  try {
    const { endpoint, dialog } = await ms.connectCaller(req, res);
    dialog.on('destroy', () => void endpoint.destroy().catch(() => undefined));
    await endpoint.play('tone_stream://%(300,0,440)');
    await endpoint.execute('echo');
  } catch { /* the caller left */ }
});
const bareCall = await probedCall();
const bareRtts = await roundTrips(bareCall.caller);
await bareCall.hangup();
ms.disconnect();
bare.disconnect();

const expected = WINDOW_MS / 20;
console.log(`round trip, caller RTP -> FreeSWITCH -> gateway -> WebSocket echo -> caller: ${fmt(rbRtts)}; ${PROBES - rbRtts.length} probes lost`);
console.log(`round trip, bare RTP loop (FreeSWITCH echo):                            ${fmt(bareRtts)}; ${PROBES - bareRtts.length} probes lost`);
console.log(`clear -> last loud frame at the caller: ${fmt(clears)}; marks back in order: ${marksInOrder}`);
console.log(`${perStream.length} streams at once over ${WINDOW_MS} ms: frames per stream at the peer min ${Math.min(...perStream)} / max ${Math.max(...perStream)} (expected ${expected}); `
  + `peer audio at the callers: loss ${(loss.loss * 100).toFixed(3)} % (${loss.gaps} missing, ${loss.late} late of ${loss.packets + loss.gaps} over ${loss.streams} streams); `
  + `event loop p99 ${(loop.percentile(99) / 1e6).toFixed(1)} ms, max ${(loop.max / 1e6).toFixed(1)} ms`);
const round = (x: number) => Math.round(x * 10) / 10;
reportRows([
  ...[50, 95].map((p) => ({
    figure: `media stream round trip (caller -> WebSocket echo -> caller), p${p}`, value: round(pct(rbRtts, p)), baseline: round(pct(bareRtts, p)),
    baselineName: "FreeSWITCH's own echo, same caller", unit: 'ms', better: 'lower' as const,
  })),
  {
    figure: `${perStream.length} streams at once: peer audio lost at the callers`, value: round(loss.loss * 100), baseline: null,
    baselineName: '', unit: '%', better: 'lower', target: '< 0.1 %', met: loss.loss < 0.001,
  },
]);

peer.close();
webhook.close();
await eng.stop();
rmSync(scratch, { recursive: true, force: true });
process.exit(0);
