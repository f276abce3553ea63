// One UDP socket that every benchmark leg's media goes to (each leg's SDP names it). Per stream (SSRC) it:
//  - talks back: answers each packet with one packet of an A-law tone, same size, to the address it came from
//    (the leg's FreeSWITCH RTP port), so every participant is an active talker FreeSWITCH must decode and mix;
//  - counts what a listener loses in a window: missing sequence numbers, plus packets arriving more than LATE_MS
//    after their due time (RTP timestamp against the stream's earliest arrival in the window), which a jitter
//    buffer would discard. The reference restarts at each window, so a pause before it (joining) does not count.
//    FreeSWITCH short of CPU sends its frames late and in bursts rather than skipping sequence numbers, so the
//    late count is what shows an overloaded mixer; the gaps show drops on the way.
// It runs in its own process (bench/rtp-sink-process.ts): arrival times taken on the bench's event loop would
// include the in-process platform's pauses, which no real listener sees.
import { spawn, type ChildProcess } from 'node:child_process';
import { createSocket, type Socket } from 'node:dgram';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { randomInt } from 'node:crypto';
import { toneAlaw } from '../test/engine-suite/real-rtp.js';

export const LATE_MS = 100;
const RESYNC = 1_000;
// One second of each tone (whole cycles, so the buffer loops seamlessly). Each leg gets one of them at random:
// equal tones could cancel out in a room's mix, different ones only beat, far faster than a packet.
const TONES = [350, 440, 530, 620, 710, 800, 890, 980].map((hz) => toneAlaw(hz, 1_000, 0.2));
const SAMPLES_PER_MS = 8;

interface Window { received: number; highest: number; late: number; audible: number }
interface Stream {
  received: number; highest: number; late: number; audible: number; lastAt: number; bestTransit: number;
  mark: Window | null; talk: { ssrc: number; seq: number; ts: number; tone: Buffer };
}

/** `audible`: packets carrying the others' tones, which shows FreeSWITCH really mixes the talk-back. */
export interface Loss { loss: number; gaps: number; late: number; audible: number; packets: number; streams: number }

/** A-law samples at -24 dBFS or more (segment 4 and up) anywhere in the payload: someone is heard, not silence. */
function audible(packet: Buffer): boolean {
  for (let i = 12; i < packet.length; i++) if (((packet[i]! ^ 0x55) & 0x70) >= 0x40) return true;
  return false;
}

export class RtpCounter {
  readonly #streams = new Map<number, Stream>();
  private constructor(readonly socket: Socket) {
    socket.on('message', (msg, from) => {
      if (msg.length < 12 || (msg[0]! & 0xc0) !== 0x80) return;
      const now = performance.now();
      const ssrc = msg.readUInt32BE(8);
      const seq = msg.readUInt16BE(2);
      const s = this.#streams.get(ssrc) ?? {
        received: 0, highest: seq - 1, late: 0, audible: 0, lastAt: 0, bestTransit: Number.POSITIVE_INFINITY, mark: null,
        talk: { ssrc: randomInt(2 ** 32), seq: randomInt(2 ** 16), ts: randomInt(2 ** 32), tone: TONES[randomInt(TONES.length)]! },
      };
      // Extended sequence number: a jump back of more than half the space is a wrap, not a reorder.
      let ext = (s.highest & ~0xffff) | seq;
      if (ext < s.highest - 0x8000) ext += 0x10000;
      // A jump of more than RESYNC packets is the sender restarting its numbering, not that many lost: re-based.
      if (ext - s.highest > RESYNC && s.received > 0) {
        if (s.mark) s.mark.highest += ext - s.highest - 1;
        s.highest = ext - 1;
      }
      s.highest = Math.max(s.highest, ext);
      s.received++;
      s.lastAt = Date.now();
      // Transit up to a constant: arrival minus the sender's clock. The least so far is the on-time reference.
      const transit = now - msg.readUInt32BE(4) / SAMPLES_PER_MS;
      s.bestTransit = Math.min(s.bestTransit, transit);
      if (s.mark && transit - s.bestTransit > LATE_MS) s.late++;
      if (audible(msg)) s.audible++;
      this.#streams.set(ssrc, s);
      this.#talk(s, msg.length - 12, from.port, from.address);
    });
  }

  #talk(s: Stream, bytes: number, port: number, address: string): void {
    const t = s.talk;
    const packet = Buffer.alloc(12 + bytes);
    packet[0] = 0x80;
    packet[1] = 8; // PCMA, the callers' only audio codec
    packet.writeUInt16BE(t.seq, 2);
    packet.writeUInt32BE(t.ts >>> 0, 4);
    packet.writeUInt32BE(t.ssrc, 8);
    for (let i = 0; i < bytes; i++) packet[12 + i] = t.tone[(t.ts + i) % t.tone.length]!;
    t.seq = (t.seq + 1) & 0xffff;
    t.ts = (t.ts + bytes) % 2 ** 32;
    this.socket.send(packet, port, address);
  }

  static async open(): Promise<RtpCounter> {
    const socket = createSocket({ type: 'udp4', recvBufferSize: 8 << 20 });
    await new Promise<void>((r) => socket.bind(0, '127.0.0.1', () => r()));
    return new RtpCounter(socket);
  }

  get port(): number { return this.socket.address().port; }

  /** Streams that sent a packet in the last second. */
  active(): number {
    const since = Date.now() - 1_000;
    return [...this.#streams.values()].filter((s) => s.lastAt >= since).length;
  }

  /** Starts a measuring window on every stream. */
  mark(): void {
    for (const s of this.#streams.values()) {
      s.mark = { received: s.received, highest: s.highest, late: s.late, audible: s.audible };
      s.bestTransit = Number.POSITIVE_INFINITY;
    }
  }

  /** Since mark(): (missing + late) / expected over the marked streams. */
  loss(): Loss {
    let expected = 0;
    let received = 0;
    let late = 0;
    let heard = 0;
    let streams = 0;
    for (const s of this.#streams.values()) {
      if (!s.mark) continue;
      streams++;
      expected += s.highest - s.mark.highest;
      received += s.received - s.mark.received;
      late += s.late - s.mark.late;
      heard += s.audible - s.mark.audible;
    }
    const gaps = Math.max(0, expected - received);
    return { loss: expected > 0 ? (gaps + late) / expected : 1, gaps, late, audible: heard, packets: received, streams };
  }

  /** Forgets every stream (between steps). */
  reset(): void { this.#streams.clear(); }
}

/** The sink in its own process, driven by one-line commands; each answer (and first the port) is one JSON line. */
export class RtpSink {
  private constructor(private readonly child: ChildProcess, private readonly answers: Array<(line: string) => void>, readonly port: number) {}

  static async open(): Promise<RtpSink> {
    const entry = fileURLToPath(new URL('./rtp-sink-process.ts', import.meta.url));
    const child = spawn(process.execPath, ['--import', 'tsx', entry], { stdio: ['pipe', 'pipe', 'inherit'] });
    const answers: Array<(line: string) => void> = [];
    createInterface({ input: child.stdout! }).on('line', (line) => answers.shift()?.(line));
    const first = await new Promise<string>((resolve, reject) => {
      answers.push(resolve);
      child.once('exit', (code) => reject(new Error(`rtp sink exited (${code})`)));
    });
    return new RtpSink(child, answers, (JSON.parse(first) as { port: number }).port);
  }

  #ask<T>(command: string): Promise<T> {
    return new Promise((resolve) => {
      this.answers.push((line) => resolve(JSON.parse(line) as T));
      this.child.stdin!.write(`${command}\n`);
    });
  }

  active(): Promise<number> { return this.#ask('active'); }
  mark(): Promise<null> { return this.#ask('mark'); }
  loss(): Promise<Loss> { return this.#ask('loss'); }
  reset(): Promise<null> { return this.#ask('reset'); }
  close(): void { this.child.kill(); }
}
