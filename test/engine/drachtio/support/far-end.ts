// Far ends for the edge-timing tests: a sipp party that answers with the test's own RTP socket as its media (so
// the test decides what the far end says, and in which packet size), one that answers a CANCEL but never sends
// the 487, and one that never answers a BYE.
import { spawn } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { killOnExit } from '../../../helpers/engines.js';
import { decodeUlaw, encodeUlaw } from '../../../../src/media/mulaw.js';
import { decodeRtp, encodeRtp, PT_PCMU } from '../../../../src/media/rtp.js';

const DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'sipp');

export interface Sipp { exited: Promise<number>; output(): string; kill(): void }

export type FarEndScenario =
  /**
   * Rings `ringMs`, answers with `rtpPort` as its media; answers the platform's BYE unless `ignoreBye`. Once
   * answered, writes where the platform's media is ("IP port") to `mediaFile`, when given (mediaAddress reads it).
   */
  | { kind: 'answer'; rtpPort: number; ringMs: number; ignoreBye?: boolean; mediaFile?: string }
  /** Rings; answers a CANCEL with 200 and never sends the 487. */
  | { kind: 'ignore-cancel' };

/** A sipp far end on `localPort` for one call, listening at most `waitMs` for what the platform does next. */
export function runFarEnd(localPort: number, scenario: FarEndScenario, scratch: string, waitMs = 120_000): Sipp {
  let xml = readFileSync(path.join(DIR, scenario.kind === 'answer' ? 'answer-rtp.xml' : 'ignore-cancel.xml'), 'utf8');
  if (scenario.kind === 'answer') {
    xml = xml.replaceAll('[rtp_port]', String(scenario.rtpPort)).replaceAll('[ring_ms]', String(scenario.ringMs))
      .replaceAll('[media_file]', scenario.mediaFile ?? '/dev/null');
    // Never answering: every BYE (and its retransmissions) is taken in and left unanswered.
    if (scenario.ignoreBye) xml = xml.replace(/<!-- BYE REPLY -->[\s\S]*<!-- END BYE REPLY -->/, '<label id="ignore"/><recv request="BYE" timeout="[wait_ms]" ontimeout="done" next="ignore"/>');
  }
  const file = path.join(scratch, `${process.pid}-${Math.random().toString(36).slice(2)}-${scenario.kind}.xml`);
  writeFileSync(file, xml.replaceAll('[wait_ms]', String(waitMs)));
  // -nd: no default behaviours, so an unexpected message never makes sipp send a BYE or CANCEL of its own.
  const child = spawn(process.env.SIPP_BIN ?? 'sipp', ['-sf', file, '-m', '1', '-i', '127.0.0.1', '-p', String(localPort), '-nd', '-nostdin',
    '-timeout', `${Math.ceil(waitMs / 1000) + 30}s`], { stdio: ['ignore', 'pipe', 'pipe'], cwd: scratch });
  killOnExit(child);
  let out = '';
  const keep = (d: Buffer) => { out = (out + d.toString()).slice(-20_000); };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  const exited = new Promise<number>((resolve) => child.on('close', (code) => resolve(code ?? 1)));
  return { exited, output: () => out, kill: () => { if (child.exitCode === null) child.kill('SIGKILL'); } };
}

/** Where the platform's media is, once a far end answered with `mediaFile` (runFarEnd); null until then. */
export function mediaAddress(mediaFile: string): { address: string; port: number } | null {
  const m = existsSync(mediaFile) ? /^(\S+) (\d+)\s*$/.exec(readFileSync(mediaFile, 'utf8')) : null;
  return m ? { address: m[1]!, port: Number(m[2]) } : null;
}

export interface RtpFarEnd {
  port: number;
  /** Starts talking to `peer` now, rather than at the platform's first packet (a no-op once talking). */
  talkTo(peer: { address: string; port: number }): void;
  /** When the far end sent its first packet (it starts once FreeSWITCH's first packet shows where to send). */
  firstSentAt(): number | null;
  /** Everything it heard, decoded (8 kHz). */
  heard(): Float32Array;
  close(): void;
}

/**
 * The far end's voice: sends `signal` (looped, PCMU) in packets of `frameMs`, paced by the wall clock, from the
 * moment FreeSWITCH's first packet arrives; keeps what it hears.
 */
export async function rtpFarEnd(signal: Float32Array, frameMs: number): Promise<RtpFarEnd> {
  // RTP wants an even port: take OS-assigned ports until one is.
  let socket = createSocket('udp4');
  for (;;) {
    await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', () => resolve()));
    if (socket.address().port % 2 === 0) break;
    socket.close();
    socket = createSocket('udp4');
  }
  const encoded = encodeUlaw(signal);
  const frameBytes = frameMs * 8;
  const heard: Float32Array[] = [];
  let firstSent: number | null = null;
  let timer: NodeJS.Timeout | null = null;
  let closed = false;
  const ssrc = Math.floor(Math.random() * 2 ** 32);
  const talk = (peer: { address: string; port: number }) => {
    if (firstSent !== null) return;
    const started = Date.now();
    firstSent = started;
    let frame = 0;
    const tick = () => {
      // Every frame due by now goes out, so a late timer on a busy machine never stretches the signal.
      while (!closed && started + frame * frameMs <= Date.now()) {
        const at = (frame * frameBytes) % (encoded.length - frameBytes + 1);
        const payload = encoded.subarray(at, at + frameBytes);
        socket.send(encodeRtp({ payloadType: PT_PCMU, marker: frame === 0, sequence: frame & 0xffff, timestamp: frame * frameBytes, ssrc, payload }), peer.port, peer.address);
        frame++;
      }
      if (!closed) timer = setTimeout(tick, Math.max(1, started + frame * frameMs - Date.now()));
    };
    tick();
  };
  socket.on('message', (msg, rinfo) => {
    const rtp = decodeRtp(msg);
    if (!rtp || rtp.payloadType !== PT_PCMU) return;
    if (firstSent === null) talk({ address: rinfo.address, port: rinfo.port });
    heard.push(decodeUlaw(rtp.payload));
  });
  return {
    port: socket.address().port,
    talkTo: talk,
    firstSentAt: () => firstSent,
    heard: () => {
      const out = new Float32Array(heard.reduce((n, c) => n + c.length, 0));
      let at = 0;
      for (const chunk of heard) { out.set(chunk, at); at += chunk.length; }
      return out;
    },
    close: () => {
      closed = true;
      if (timer) clearTimeout(timer);
      try { socket.close(); } catch { /* closed */ }
    },
  };
}
