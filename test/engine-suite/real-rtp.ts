// What a sipp caller hears: sipp sends from its own media port, but the SDP names this socket, so FreeSWITCH's
// audio lands here. G.711 payloads are decoded to measure the peak level; the first packet's arrival time is
// the caller's "first RTP" (bench). Keys go out as RFC 2833 events, or as tones in the audio (in-band).
import { createSocket, type Socket } from 'node:dgram';
import { readFileSync } from 'node:fs';

function alaw(b: number): number {
  let a = b ^ 0x55;
  const seg = (a & 0x70) >> 4;
  let t = (a & 0x0f) << 4;
  t += seg === 0 ? 8 : 0x108;
  if (seg > 1) t <<= seg - 1;
  return (a & 0x80 ? t : -t) / 32768;
}

function ulaw(b: number): number {
  const u = ~b & 0xff;
  let t = ((u & 0x0f) << 3) + 0x84;
  t <<= (u & 0x70) >> 4;
  return ((u & 0x80) ? 0x84 - t : t - 0x84) / 32768;
}

/** A-law encoding by the decoder: the byte whose level is nearest (for in-band keys; speech comes encoded). */
const ALAW_BY_LEVEL = Array.from({ length: 256 }, (_, b) => b).sort((a, b) => alaw(a) - alaw(b));
function toAlaw(x: number): number {
  let lo = 0;
  let hi = 255;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (alaw(ALAW_BY_LEVEL[mid]!) < x) lo = mid + 1;
    else hi = mid;
  }
  const below = ALAW_BY_LEVEL[Math.max(0, lo - 1)]!;
  return Math.abs(alaw(below) - x) < Math.abs(alaw(ALAW_BY_LEVEL[lo]!) - x) ? below : ALAW_BY_LEVEL[lo]!;
}

// ITU-T Q.23: each key is the sum of its row's low and its column's high frequency.
const DTMF_ROWS = ['123A', '456B', '789C', '*0#D'];
const DTMF_LOW = [697, 770, 852, 941];
const DTMF_HIGH = [1209, 1336, 1477, 1633];
const TONE_MS = 70;
/** Per frequency, about -13 dBFS: far above FreeSWITCH's (spandsp's) detection threshold, no clipping, no twist. */
const TONE_LEVEL = 0.22;

/** A steady tone as A-law audio (8 kHz), e.g. to tell callers apart by what the others hear. */
export function toneAlaw(hz: number, ms: number, level = 0.3): Buffer {
  return Buffer.from(Array.from({ length: Math.round(ms * 8) }, (_, i) => toAlaw(level * Math.sin((2 * Math.PI * hz * i) / 8000))));
}

/** Any samples in [-1, 1] at 8 kHz as A-law audio, e.g. a known signal to correlate with what arrives. */
export function samplesAlaw(samples: Float32Array): Buffer {
  return Buffer.from(Array.from(samples, toAlaw));
}

/** A key as in-band audio (A-law, 8 kHz): 70 ms of its two tones, then 70 ms of silence, in whole 20 ms frames. */
export function dtmfTone(key: string): Buffer {
  const row = DTMF_ROWS.findIndex((r) => r.includes(key));
  if (row < 0) throw new Error(`no DTMF tone for key ${key}`);
  const [low, high] = [DTMF_LOW[row]!, DTMF_HIGH[DTMF_ROWS[row]!.indexOf(key)]!];
  const audio = Buffer.alloc(Math.ceil((TONE_MS * 2 * 8) / 160) * 160, 0xd5);
  for (let i = 0; i < TONE_MS * 8; i++) {
    audio[i] = toAlaw(TONE_LEVEL * (Math.sin((2 * Math.PI * low * i) / 8000) + Math.sin((2 * Math.PI * high * i) / 8000)));
  }
  return audio;
}

export interface RtpRecorder {
  port: number;
  /** Highest absolute sample level heard (0..1); RFC 2833 and comfort noise are ignored. */
  peak(): number;
  packets(): number;
  /** Arrival time of the first audio packet whose level is above silence, or null. */
  firstAudibleAt(): number | null;
  firstPacketAt(): number | null;
  /** When the packet holding sample `sample` of samples() arrived (Date.now()), or null past the end. */
  arrivalOf(sample: number): number | null;
  /** Everything heard so far, decoded to samples in [-1, 1] at 8 kHz (the first 2 minutes), for frequency checks. */
  samples(): Float32Array;
  /** Talks for `ms` (instead of silence) towards wherever FreeSWITCH's audio comes from: speech (A-law) from `pcmaPayload`. */
  speak(ms: number, pcmaPayload: Buffer): Promise<void>;
  /** Sends one RFC 2833 key: the event packets of a pcap, re-stamped into this stream. */
  sendKey(event: PcapRtp[]): Promise<void>;
  /** Sends audio (A-law, e.g. `dtmfTone(key)`) in place of silence or speech; resolves once it has all been sent. */
  sendAudio(audio: Buffer): Promise<void>;
  /** Network jitter: the next frame leaves `ms` late, the ones behind it back to back until on time again. */
  delayNext(ms: number): void;
  close(): void;
}

export interface PcapRtp { pt: number; marker: boolean; payload: Buffer; atMs: number }

/** The RTP packets of a pcap (Ethernet/IPv4/UDP framing): payload type, marker, payload, capture time. */
export function pcapRtp(file: string): PcapRtp[] {
  const d = readFileSync(file);
  const packets: PcapRtp[] = [];
  for (let off = 24; off + 16 <= d.length;) {
    const atMs = d.readUInt32LE(off) * 1000 + d.readUInt32LE(off + 4) / 1000;
    const incl = d.readUInt32LE(off + 8);
    const pkt = d.subarray(off + 16, off + 16 + incl);
    off += 16 + incl;
    const rtp = pkt.subarray(42);
    if (rtp.length > 12) packets.push({ pt: rtp[1]! & 0x7f, marker: (rtp[1]! & 0x80) !== 0, payload: rtp.subarray(12 + (rtp[0]! & 0x0f) * 4), atMs });
  }
  return packets;
}

/** The A-law payloads of an RTP pcap, concatenated: speech to replay. */
export function pcapPayload(file: string): Buffer {
  return Buffer.concat(pcapRtp(file).filter((p) => p.pt === 8).map((p) => p.payload));
}

/** Nearest μ-law byte for each A-law byte: a party that answered PCMU sends what the test queued (A-law) as μ-law. */
const ULAW_BY_LEVEL = Array.from({ length: 256 }, (_, b) => b).sort((a, b) => ulaw(a) - ulaw(b));
const ALAW_TO_ULAW = Buffer.from(Array.from({ length: 256 }, (_, a) => {
  const x = alaw(a);
  return ULAW_BY_LEVEL.reduce((best, u) => (Math.abs(ulaw(u) - x) < Math.abs(ulaw(best) - x) ? u : best), ULAW_BY_LEVEL[0]!);
}));

export type G711 = 'PCMA' | 'PCMU';

/** A-law audio (what toneAlaw makes) as `codec` payload bytes. */
export function encodeAs(codec: G711, alawBytes: Buffer): Buffer {
  return codec === 'PCMU' ? Buffer.from(Uint8Array.from(alawBytes, (b) => ALAW_TO_ULAW[b]!)) : alawBytes;
}

/** `codec` payload bytes decoded to samples in [-1, 1]. */
export function decodeAs(codec: G711, bytes: Uint8Array): Float32Array {
  return Float32Array.from(bytes, codec === 'PCMU' ? ulaw : alaw);
}

const AUDIBLE = 0.02;
const MAX_KEPT_SAMPLES = 8000 * 120;

function listen(socket: Socket, codec: G711): RtpRecorder {
  let peak = 0;
  let count = 0;
  let first: number | null = null;
  let audible: number | null = null;
  let peer: { address: string; port: number } | null = null;
  let closed = false;
  const heard: Float32Array[] = [];
  /** Date.now() at each chunk of `heard`: when each packet arrived. */
  const arrivals: number[] = [];
  let kept = 0;
  // What we send is one RTP stream: a random SSRC, a sequence number, and a timestamp that never repeats one
  // already used. Audio frames are stamped like a phone's, by the 20 ms tick they belong to (its sample clock):
  // a busy test process sends them late and back to back, but the audio is no less contiguous, and stamping it
  // with the wall clock instead told FreeSWITCH of gaps that were not there (it then dropped audio).
  const ssrc = Math.floor(Math.random() * 2 ** 32);
  const clockStart = Date.now();
  let seq = 0;
  let lastTs = -160;
  const nextTs = (atMs: number) => {
    lastTs = Math.max(lastTs + 160, Math.floor((atMs - clockStart) / 20) * 160);
    return lastTs >>> 0;
  };
  /** A key's timestamp: the wall clock in 20 ms steps. */
  const clockTs = () => nextTs(Date.now());
  const send = (pt: number, marker: boolean, ts: number, payload: Buffer) => {
    if (!peer || closed) return;
    const header = Buffer.alloc(12);
    header[0] = 0x80;
    header[1] = pt | (marker ? 0x80 : 0);
    header.writeUInt16BE(seq++ & 0xffff, 2);
    header.writeUInt32BE(ts, 4);
    header.writeUInt32BE(ssrc, 8);
    socket.send(Buffer.concat([header, payload]), peer.port, peer.address);
  };
  // Like a phone, the caller sends audio all call long from the port its SDP names: silence, or speech while
  // it talks. FreeSWITCH's recordings of both tracks advance with the caller's packets, so a caller that sent
  // nothing would leave them nearly empty.
  let speech: { payload: Buffer; frame: number } | null = null;
  let delayMs = 0;
  let inKey = 0;
  const queued: Array<{ audio: Buffer; at: number; sent: () => void }> = [];
  const SILENCE = Buffer.alloc(160, 0xd5);
  const talk = async () => {
    const started = Date.now();
    for (let i = 1; !closed; i++) {
      if (delayMs > 0) {
        const ms = delayMs;
        delayMs = 0;
        await new Promise((r) => setTimeout(r, ms));
      }
      if (!inKey) {
        let frame: Buffer = SILENCE;
        const next = queued[0];
        if (next) {
          frame = Buffer.alloc(160, 0xd5);
          next.audio.copy(frame, 0, next.at, next.at + 160);
          next.at += 160;
          if (next.at >= next.audio.length) { queued.shift(); next.sent(); }
        } else if (speech) {
          const at = (speech.frame++ * 160) % (speech.payload.length - 160);
          frame = speech.payload.subarray(at, at + 160);
        }
        send(codec === 'PCMU' ? 0 : 8, false, nextTs(started + (i - 1) * 20), encodeAs(codec, frame));
      }
      await new Promise((r) => setTimeout(r, Math.max(0, started + i * 20 - Date.now())));
    }
  };
  socket.on('message', (msg, rinfo) => {
    if (!peer) {
      peer = { address: rinfo.address, port: rinfo.port };
      void talk();
    }
    if (msg.length < 12) return;
    const pt = msg[1]! & 0x7f;
    if (pt !== 0 && pt !== 8) return;
    count++;
    first ??= Date.now();
    const cc = msg[0]! & 0x0f;
    const decode = pt === 8 ? alaw : ulaw;
    const payload = msg.subarray(12 + cc * 4);
    const decoded = Float32Array.from(payload, decode);
    if (kept < MAX_KEPT_SAMPLES) { heard.push(decoded); arrivals.push(Date.now()); kept += decoded.length; }
    let packetPeak = 0;
    for (const x of decoded) packetPeak = Math.max(packetPeak, Math.abs(x));
    if (packetPeak > AUDIBLE) audible ??= Date.now();
    peak = Math.max(peak, packetPeak);
  });
  return {
    port: socket.address().port,
    peak: () => peak,
    packets: () => count,
    firstAudibleAt: () => audible,
    firstPacketAt: () => first,
    arrivalOf(sample) {
      let at = 0;
      for (let i = 0; i < heard.length; i++) {
        at += heard[i]!.length;
        if (sample < at) return arrivals[i]!;
      }
      return null;
    },
    samples: () => {
      const out = new Float32Array(kept);
      let at = 0;
      for (const chunk of heard) { out.set(chunk, at); at += chunk.length; }
      return out;
    },
    async speak(ms, payload) {
      speech = { payload, frame: 0 };
      await new Promise((r) => setTimeout(r, ms));
      speech = null;
    },
    async sendKey(event) {
      // One stream, as a phone sends it: our SSRC, consecutive sequence numbers, and one timestamp (the key's
      // start) for every packet of the event, audio suspended meanwhile. Replaying sipp's digit pcaps as they
      // are (one fixed SSRC, unrelated sequence numbers and timestamps) lost the third of three keys in FreeSWITCH.
      inKey++;
      const ts = clockTs();
      const t0 = event[0]?.atMs ?? 0;
      const started = Date.now();
      for (const p of event) {
        const wait = started + (p.atMs - t0) - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        if (closed) break;
        send(p.pt, p.marker, ts, p.payload);
      }
      inKey--;
    },
    sendAudio: (audio) => new Promise((sent) => { queued.push({ audio, at: 0, sent }); }),
    delayNext: (ms) => { delayMs = ms; },
    close: () => {
      closed = true;
      for (const { sent } of queued.splice(0)) sent();
      try { socket.close(); } catch { /* closed */ }
    },
  };
}

/** RTP wants an even port: take OS-assigned ports until one is. `codec` is what it sends (it hears either). */
export async function rtpRecorder(codec: G711 = 'PCMA'): Promise<RtpRecorder> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const socket = createSocket('udp4');
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject);
      socket.bind(0, '127.0.0.1', () => { socket.off('error', reject); resolve(); });
    });
    if (socket.address().port % 2 === 0) return listen(socket, codec);
    socket.close();
  }
  throw new Error('no even UDP port for the RTP recorder');
}
