// The audio side of a test phone, on a thread of its own: it sends its frames every 20 ms towards wherever the far
// end's audio comes from, and keeps every payload it receives in shared memory. On the test's main thread (which
// also runs the platform) a busy event loop held frames back by up to 170 ms and FreeSWITCH dropped the bursts that
// followed: gaps the platform did not make. Plain JavaScript, so the thread needs no TypeScript loader.
import { execFileSync } from 'node:child_process';
import { createSocket } from 'node:dgram';
import { readlinkSync } from 'node:fs';
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';

// A phone is a device of its own, not a task of the machine under test: its thread runs at a higher priority than
// the test processes where the system allows it (root, as CI runs). A loaded run starved a phone's thread for
// 208 ms, and the tone it stopped sending counted against the platform. /proc/thread-self names this thread's id,
// which setpriority and chrt take on Linux. Without the right, it runs as before.
const thread = readlinkSync('/proc/thread-self').split('/').pop();
try {
  setPriority(Number(thread), -10);
} catch { /* not allowed here: normal priority */ }
// Nice alone was not enough: FreeSWITCH runs its threads realtime (SCHED_FIFO, priorities 1 to 10, its timer at
// 99) where it may, and a realtime thread runs before any niced one; loaded runs still had phones 150 ms late. The
// phone's thread is realtime too, above FreeSWITCH's media threads and below its timer: it wakes every 20 ms to send
// one packet, so it takes them next to nothing.
try {
  execFileSync('chrt', ['--fifo', '--pid', '11', thread], { stdio: 'ignore' });
} catch { /* no chrt, or not allowed: as niced above */ }

const { port, pt, frames, heard, length } = workerData;
/** Received payload bytes so far (one byte per 8 kHz sample), written with Atomics so the main thread reads it whole. */
const written = new Int32Array(length);
// Length-tracking: the view grows with the (growable) shared buffer.
const out = new Uint8Array(heard);
const FRAME = 160;
const socket = createSocket('udp4');
const ssrc = Math.floor(Math.random() * 2 ** 32);
let peer = null;
let closed = false;
/** Packets per source address and payload type: what a phone that heard nothing was sent instead, for a failure message. */
const sources = new Map();
/**
 * How late this sender was: its longest wait past a frame's due time, and the frames sent over 40 ms late (a far
 * end that reads on a 20 ms timer drops those as too late). Said in a failure message, to tell a thread starved by
 * a loaded machine from audio the platform lost.
 */
const lateness = { maxMs: 0, framesOver40: 0 };
/**
 * The longest wait between two packets heard: a far end that stalled leaves a gap; one that kept sending but sent
 * silence leaves none. Said beside a listener's missing packets.
 */
const arrival = { last: 0, maxGapMs: 0 };
/** Wall-clock milliseconds, comparable between the phones' threads (each has its own performance.now() origin). */
const wallMs = () => performance.timeOrigin + performance.now();
/**
 * When this sender stalled: [due, sent] wall-clock spans over which its frames went out over 40 ms late (runs of
 * late frames merged). A listener's packet that lacks this phone's tone within such a span is the phone's doing.
 */
const stalls = [];
/** When each received payload of the phone's own payload type arrived (wall clock), in order: packet k of heard. */
const arrivals = [];

function talk() {
  const started = performance.now();
  let frame = 0;
  const tick = () => {
    if (closed) return;
    // Every frame due by now goes out, in order and with consecutive timestamps, as a phone's sender does.
    while (frame <= (performance.now() - started) / 20) {
      const lateMs = performance.now() - (started + frame * 20);
      lateness.maxMs = Math.max(lateness.maxMs, lateMs);
      if (lateMs > 40) {
        lateness.framesOver40++;
        const sent = wallMs();
        const due = sent - lateMs;
        const last = stalls.at(-1);
        if (last && due <= last[1]) last[1] = sent;
        else stalls.push([due, sent]);
      }
      const at = (frame * FRAME) % frames.length;
      const header = Buffer.alloc(12);
      header[0] = 0x80;
      header[1] = pt;
      header.writeUInt16BE(frame & 0xffff, 2);
      header.writeUInt32BE((frame * FRAME) >>> 0, 4);
      header.writeUInt32BE(ssrc, 8);
      socket.send(Buffer.concat([header, Buffer.from(frames.buffer, frames.byteOffset + at, FRAME)]), peer.port, peer.address);
      frame++;
    }
    setTimeout(tick, Math.max(0, started + frame * 20 - performance.now()));
  };
  tick();
}

/** RFC 2833 keys heard (telephone-event at the payload type the test SDPs name), one per event, in order. */
const KEY_PT = 101;
const KEY_NAMES = '0123456789*#ABCD';
let keys = '';
/** The timestamp of the last event counted: its end packet comes three times. */
let lastKeyStamp = null;
function heardKey(msg) {
  const payload = msg.subarray(12 + (msg[0] & 0x0f) * 4);
  const stamp = msg.readUInt32BE(4);
  if ((payload[1] & 0x80) === 0 || stamp === lastKeyStamp) return;
  lastKeyStamp = stamp;
  keys += KEY_NAMES[payload[0]] ?? '?';
}

socket.on('message', (msg, rinfo) => {
  const source = `${rinfo.address}:${rinfo.port} pt ${msg.length < 12 ? '?' : msg[1] & 0x7f}`;
  sources.set(source, (sources.get(source) ?? 0) + 1);
  if (!peer) {
    peer = { address: rinfo.address, port: rinfo.port };
    talk();
  }
  if (msg.length >= 16 && (msg[1] & 0x7f) === KEY_PT) heardKey(msg);
  if (msg.length < 12 || (msg[1] & 0x7f) !== pt) return;
  const now = performance.now();
  if (arrival.last) arrival.maxGapMs = Math.max(arrival.maxGapMs, now - arrival.last);
  arrival.last = now;
  arrivals.push(wallMs());
  const payload = msg.subarray(12 + (msg[0] & 0x0f) * 4);
  const at = Atomics.load(written, 0);
  if (at + payload.length > heard.byteLength) {
    // Grown before the write (the reader's view follows the buffer's length); past the most, the call is too long.
    if (at + payload.length > heard.maxByteLength) return;
    heard.grow(Math.min(heard.maxByteLength, Math.max(heard.byteLength * 2, at + payload.length)));
  }
  out.set(payload, at);
  Atomics.store(written, 0, at + payload.length);
});

parentPort.on('message', (message) => {
  if (message === 'report') {
    parentPort.postMessage({ sources: Object.fromEntries(sources), peer: peer && `${peer.address}:${peer.port}`, lateness, maxGapMs: arrival.maxGapMs, keys, stalls, arrivals });
    return;
  }
  closed = true;
  socket.close();
  parentPort.close();
});

socket.bind(port, '127.0.0.1', () => parentPort.postMessage('ready'));
