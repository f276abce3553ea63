// The sandbox's AudioTap: generated caller audio framed at 20 ms on the clock, paced playout with marks and
// clear, and what the far end heard in its transcript.
import { createHash } from 'node:crypto';
import t from 'tap';
import type { AudioFrame, AudioTap, CallLeg } from '../../src/engine/port.js';
import { decodeUlaw, encodeUlaw } from '../../src/media/mulaw.js';
import { toneShare } from '../helpers/tone.js';
import { FakeClock } from '../../src/clock.js';
import { PacedAudioTap } from '../../src/engine/paced-tap.js';
import { find, sandbox } from '../engine/sandbox/_support.js';

async function answered(t: Tap): Promise<{ leg: CallLeg; call: ReturnType<Awaited<ReturnType<typeof sandbox>>['engine']['simulateInbound']>; sb: Awaited<ReturnType<typeof sandbox>> }> {
  const sb = await sandbox(t);
  const incoming = sb.nextIncoming();
  const call = sb.engine.simulateInbound({ from: '+15550001111', to: '+15550002222' });
  const leg = await (await incoming).answer();
  return { leg, call, sb };
}
type Tap = Parameters<typeof sandbox>[0];

function tone(hz: number, frames: number): Buffer {
  const samples = new Float32Array(frames * 160);
  for (let i = 0; i < samples.length; i++) samples[i] = 0.3 * Math.sin((2 * Math.PI * hz * i) / 8000);
  return encodeUlaw(samples);
}

t.test('a bidirectional tap gives 50 inbound frames a second of the caller tone', async (t) => {
  const { leg, sb } = await answered(t);
  const tap = await leg.openAudio({ mode: 'bidirectional' });
  const frames: AudioFrame[] = [];
  tap.on('frame', (f) => frames.push(f));
  await sb.clock.advance(1000);
  t.equal(frames.length, 50);
  t.ok(frames.every((f) => f.track === 'inbound' && f.payload.length === 160));
  const audio = decodeUlaw(Buffer.concat(frames.map((f) => f.payload)));
  t.ok(toneShare(audio, 440) > 0.9, 'the caller speaks a 440 Hz tone');
  await tap.close();
  await sb.clock.advance(100);
  t.equal(frames.length, 50, 'nothing after close');
});

t.test('a fork carries both tracks', async (t) => {
  const { leg, sb } = await answered(t);
  const tap = await leg.openAudio({ mode: 'fork' });
  const tracks = new Map<string, number>();
  tap.on('frame', (f) => tracks.set(f.track, (tracks.get(f.track) ?? 0) + 1));
  await sb.clock.advance(200);
  t.same(Object.fromEntries(tracks), { inbound: 10, outbound: 10 });
  t.throws(() => tap.send(Buffer.alloc(160)), /only listens/);
  await tap.close();
});

t.test('sent audio is paced at 20 ms, heard in the transcript, and marks fire when reached', async (t) => {
  const { leg, call, sb } = await answered(t);
  const tap = await leg.openAudio({ mode: 'bidirectional' });
  const marks: Array<{ name: string; at: number }> = [];
  tap.on('mark', (name) => marks.push({ name, at: sb.clock.now() }));
  const start = sb.clock.now();
  const audio = tone(300, 10);
  tap.send(audio.subarray(0, 1000)); // not a whole number of frames: the rest waits for the next send
  tap.send(audio.subarray(1000));
  tap.mark('first');
  t.equal(tap.queuedFrames, 10);
  await sb.clock.advance(100);
  t.equal(tap.queuedFrames, 4, 'frames at 0, 20, ... 100 ms played');
  await sb.clock.advance(200);
  t.same(marks, [{ name: 'first', at: start + 180 }], 'the mark fires with the last frame');
  const [heard] = find(call, 'heard-stream');
  t.same(heard, { type: 'heard-stream', frames: 10, sha1: createHash('sha1').update(audio).digest('hex'), at: heard!.at });
  tap.mark('empty');
  await sb.clock.advance(0);
  t.equal(marks[1]?.name, 'empty', 'a mark with nothing queued comes back at once');
  await tap.close();
});

t.test('clear drops queued audio at once and answers pending marks', async (t) => {
  const { leg, call, sb } = await answered(t);
  const tap: AudioTap = await leg.openAudio({ mode: 'bidirectional' });
  const marks: string[] = [];
  tap.on('mark', (name) => marks.push(name));
  tap.send(tone(300, 50));
  tap.mark('end');
  await sb.clock.advance(100);
  tap.clear();
  t.equal(tap.queuedFrames, 0);
  t.same(marks, ['end']);
  t.same(find(call, 'stream-cleared').map((e) => e.frames), [44]);
  t.same(find(call, 'heard-stream').map((e) => e.frames), [6]);
  await tap.close();
});

t.test('the tap closes when the call ends, and an ended leg refuses a new one', async (t) => {
  const { leg, call, sb } = await answered(t);
  const tap = await leg.openAudio({ mode: 'bidirectional' });
  call.hangup();
  await tap.closed;
  await sb.clock.advance(100);
  t.same(find(call, 'audio-closed').map((e) => e.mode), ['bidirectional']);
  await t.rejects(leg.openAudio({ mode: 'fork' }), /ended/);
  t.equal(sb.clock.pendingTimers, 0, 'no timer left on the clock');
});

t.test('a frame that arrives late waits for the next tick of the playout grid, without a new pre-buffer', async (t) => {
  const clock = new FakeClock(0);
  const played: number[] = [];
  const grid: number[] = [];
  const tap = new PacedAudioTap('bidirectional', clock, { play: (_frame, at) => { played.push(clock.now()); grid.push(at); }, release: async () => undefined });
  const frame = tone(300, 1);
  tap.send(frame);
  tap.send(frame); // a pre-buffer's worth: playout starts at once
  await clock.advance(30);
  tap.send(frame); // in time for the tick at 40
  await clock.advance(45);
  tap.send(frame); // at 75, after an empty tick at 60: played on the grid at 80, not after a new 20 ms pre-buffer (95)
  await clock.advance(500);
  tap.send(frame); // long after playout stopped (10 empty ticks): a fresh start, one frame time later
  await clock.advance(100);
  t.same(played, [0, 20, 40, 80, 595]);
  t.same(grid, played, 'each frame is handed its place on the grid (the RTP timestamps follow it)');
  t.equal(clock.pendingTimers, 1, 'the grid is still kept for a late frame');
  await clock.advance(300);
  t.equal(clock.pendingTimers, 0, 'then playout stops');
  await tap.close();
});
