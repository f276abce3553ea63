// A test phone's audio on a thread of its own (rtp-phone-worker.mjs): it says one tone all call long, from its first
// packet, and hears everything the far end sends. Its timing does not depend on the test's event loop, which also
// runs the platform.
import { Worker } from 'node:worker_threads';
import { decodeAs, encodeAs, toneAlaw, type G711 } from './real-rtp.js';
import { mediaPort } from './real-sipp.js';

export interface TonePhone {
  /** The even UDP port its SDP names. */
  port: number;
  /** Everything heard so far, decoded (8 kHz samples in [-1, 1]). */
  samples(): Float32Array;
  /** Where its packets came from (address, port and payload type: count) and where it sends: for failure messages. */
  sources(): Promise<string>;
  /**
   * How late its own frames went out: a far end reading on a 20 ms timer drops frames that come over about 40 ms
   * late, so a listener's gap is the platform's only if its senders were on time. Also the longest wait between
   * two packets it heard: a listener's silent packets with no such gap were sent as silence.
   */
  lateness(): Promise<string>;
  /** The RFC 2833 keys it has been sent (telephone-event, payload type 101), in order. */
  keys(): Promise<string>;
  /** When it stalled as a sender, and when each packet it heard arrived (see PhoneTiming); null once closed. */
  timing(): Promise<PhoneTiming | null>;
  close(): void;
}

/**
 * What a phone hears is kept in shared memory that grows as the call goes on: 2 minutes at first, up to an hour.
 * A fixed 2 minutes silently dropped everything after it, and a caller kept in a room through 20 participants on
 * a loaded machine (over 6 s each) heard nothing from the 17th on.
 */
const HEARD_BYTES = 8000 * 120;
const HEARD_MAX_BYTES = 8000 * 3600;
/** ES2024's growable SharedArrayBuffer, which Node 20 has (V8 11) and this TypeScript lib does not declare yet. */
const GrowableSharedArrayBuffer = SharedArrayBuffer as unknown as new (bytes: number, opts: { maxByteLength: number }) => SharedArrayBuffer;

/** Wall-clock milliseconds (comparable between phones): when a phone sent late, and when it heard each packet. */
export interface PhoneTiming {
  /** [due, sent] spans over which its frames went out over 40 ms late. */
  stalls: Array<[number, number]>;
  /** When each packet it heard arrived: arrivals[k] for the k-th 20 ms packet of samples(). */
  arrivals: number[];
}

/** What the phone's thread says of itself when asked. */
interface WorkerReport extends PhoneTiming {
  /** Packets per source address and payload type. */
  sources: Record<string, number>;
  peer: string | null;
  lateness: { maxMs: number; framesOver40: number };
  /** The longest wait between two packets it heard. */
  maxGapMs: number;
  /** RFC 2833 keys it was sent, in order. */
  keys: string;
}

/**
 * Each tone's audio, made once per test process: a minute of it is half a million samples, and making it again for
 * every phone of a 20-call path cost a loaded test process tenths of a second per phone.
 */
const toneFrames = new Map<string, Buffer>();

/**
 * A phone answering with `codec` that says `hz` for `seconds` (then starts over). Its thread starts without this
 * process's options (`execArgv: []`): the worker is plain JavaScript, and inheriting the test runner's loaders
 * (tsx, tap's) made each phone take over a second to start on a busy machine.
 */
export async function tonePhone(hz: number, codec: G711, seconds = 60): Promise<TonePhone> {
  const port = await mediaPort();
  const heard = new GrowableSharedArrayBuffer(HEARD_BYTES, { maxByteLength: HEARD_MAX_BYTES });
  const length = new SharedArrayBuffer(4);
  const key = `${hz}/${codec}/${seconds}`;
  const frames = toneFrames.get(key) ?? toneFrames.set(key, encodeAs(codec, toneAlaw(hz, seconds * 1000))).get(key)!;
  const worker = new Worker(new URL('./rtp-phone-worker.mjs', import.meta.url), {
    workerData: { port, pt: codec === 'PCMU' ? 0 : 8, frames, heard, length }, execArgv: [],
  });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  const written = new Int32Array(length);
  let bytes: Uint8Array | null = new Uint8Array(heard);
  // Decoded as it is read, in a buffer that grows: a test holds many phones until its teardown.
  let decoded = new Float32Array(8000 * 4);
  let done = 0;
  const report = (): Promise<WorkerReport | null> => {
    if (!bytes) return Promise.resolve(null);
    const answer = new Promise<WorkerReport>((resolve) => {
      const onMessage = (m: WorkerReport | 'ready') => {
        if (m === 'ready') return;
        worker.off('message', onMessage);
        resolve(m);
      };
      worker.on('message', onMessage);
    });
    worker.postMessage('report');
    return answer;
  };
  return {
    port,
    samples: () => {
      const upTo = bytes ? Atomics.load(written, 0) : done;
      if (upTo > decoded.length) {
        const grown = new Float32Array(Math.max(upTo, decoded.length * 2));
        grown.set(decoded.subarray(0, done));
        decoded = grown;
      }
      if (bytes) decoded.set(decodeAs(codec, bytes.subarray(done, upTo)), done);
      done = upTo;
      return decoded.subarray(0, done);
    },
    sources: async () => {
      const r = await report();
      if (!r) return '(closed)';
      const from = Object.entries(r.sources).map(([source, n]) => `${source}: ${n}`).join(', ') || 'nothing';
      return `heard from ${from}; talks to ${r.peer ?? 'nobody yet'}`;
    },
    lateness: async () => {
      const r = await report();
      return r ? `frames sent at most ${r.lateness.maxMs.toFixed(0)} ms late, ${r.lateness.framesOver40} over 40 ms, heard packets at most ${r.maxGapMs.toFixed(0)} ms apart` : '(closed)';
    },
    keys: async () => (await report())?.keys ?? '',
    timing: async () => {
      const r = await report();
      return r && { stalls: r.stalls, arrivals: r.arrivals };
    },
    close: () => {
      if (!bytes) return;
      bytes = null;
      worker.postMessage('close');
    },
  };
}
