import t from 'tap';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CallLeg, RecordOptions } from '../../../src/engine/port.js';
import { readWav, readWavInfo, type CallerScript } from '../../../src/engine/sandbox/index.js';
import { kinds, sandbox, timed } from './_support.js';

const recordOpts = (file: string, opts: Partial<RecordOptions> = {}): RecordOptions =>
  ({ file, maxLengthMs: 60_000, silenceTimeoutMs: 3000, finishOnKey: '', beep: false, ...opts });

/** Rough pitch from zero crossings over the first second: enough to tell 440 Hz from 660 Hz. */
function pitch(samples: Float32Array, sampleRate: number): number {
  let crossings = 0;
  for (let i = 1; i < Math.min(samples.length, sampleRate); i++) if ((samples[i - 1]! < 0) !== (samples[i]! < 0)) crossings++;
  return Math.round(crossings / 2 / 10) * 10;
}

function rms(samples: Float32Array): number {
  return Math.sqrt(samples.reduce((sum, s) => sum + s * s, 0) / Math.max(1, samples.length));
}

async function answered(t: Parameters<typeof sandbox>[0], caller: CallerScript = {}) {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller });
  await sb.clock.advance(0);
  return { ...sb, call, leg };
}

t.test('record: a real WAV with the caller talking, then silence until the silence timeout', async (t) => {
  const { leg, clock, dir, call } = await answered(t, { speakMs: 2000 });
  const file = path.join(dir, 'vm.wav');
  const result = timed(clock, leg.record(recordOpts(file, { beep: true })));
  await clock.advance(10_000);
  t.same(result.value, { file, durationMs: 5000, reason: 'silence' });
  t.equal(result.at, 5300, 'beep 300 ms, speech 2 s, silence 3 s');
  const info = await readWavInfo(file);
  t.same({ sampleRate: info.sampleRate, channels: info.channels, durationMs: info.durationMs }, { sampleRate: 8000, channels: 1, durationMs: 5000 });
  t.ok(info.peak > 0.1, `audible (peak ${info.peak})`);
  const samples = (await readWav(file)).channels[0]!;
  t.ok(rms(samples.subarray(0, 16_000)) > 0.1, 'speech for the first 2 s');
  t.equal(rms(samples.subarray(16_000)), 0, 'silence after');
  t.same(kinds(call), ['answered', 'beep', 'recording-started', 'recording-stopped']);
});

t.test('record: max length wins when the caller keeps talking', async (t) => {
  const { leg, clock, dir } = await answered(t, { speakMs: 30_000 });
  const file = path.join(dir, 'long.wav');
  const result = timed(clock, leg.record(recordOpts(file, { maxLengthMs: 4000 })));
  await clock.advance(10_000);
  t.same(result.value, { file, durationMs: 4000, reason: 'max-length' });
  t.equal((await readWavInfo(file)).durationMs, 4000);
});

t.test('record: finishOnKey ends it and is consumed; other keys stay buffered', async (t) => {
  const { leg, clock, dir } = await answered(t, { digits: [{ atMs: 1000, keys: '5' }, { atMs: 1500, keys: '#' }] });
  const file = path.join(dir, 'key.wav');
  const result = timed(clock, leg.record(recordOpts(file, { finishOnKey: '#*' })));
  await clock.advance(2000);
  t.same(result.value, { file, durationMs: 1500, reason: 'finish-key', finishKey: '#' });
  t.equal((await readWavInfo(file)).durationMs, 1500);
  const next = timed(clock, leg.collectDigits({ prompts: [], timeoutMs: 1000, finishOnKey: '' }));
  await clock.advance(2000);
  t.same(next.value, { digits: '5', reason: 'timeout' }, 'the 5 was buffered, the # was not');
});

t.test('record: a hangup ends it with the file finalised', async (t) => {
  const { leg, clock, dir, call, engine } = await answered(t, { hangupAfterMs: 2500 });
  const file = path.join(dir, 'cut.wav');
  const result = timed(clock, leg.record(recordOpts(file)));
  await clock.advance(5000);
  t.same(result.value, { file, durationMs: 2500, reason: 'hangup' });
  t.equal((await readWavInfo(file)).durationMs, 2500);
  t.same(kinds(call), ['answered', 'recording-started', 'recording-stopped', 'hangup']);
  const late = await leg.record(recordOpts(path.join(dir, 'late.wav'), { beep: true }));
  t.same(late, { file: path.join(dir, 'late.wav'), durationMs: 0, reason: 'hangup' }, 'after hangup: empty file, at once');
  t.equal(engine.activeLegs(), 0);
  t.equal(clock.pendingTimers, 0);
});

t.test('call recording: mixed mono vs one channel per side', async (t) => {
  const { leg, clock, dir } = await answered(t);
  const mono = await leg.startCallRecording({ file: path.join(dir, 'mono.wav'), tracks: 'both', dualChannel: false });
  const dual = await leg.startCallRecording({ file: path.join(dir, 'dual.wav'), tracks: 'both', dualChannel: true });
  const inbound = await leg.startCallRecording({ file: path.join(dir, 'in.wav'), tracks: 'inbound', dualChannel: true });
  t.same([mono.channels, dual.channels, inbound.channels], [1, 2, 1], 'dualChannel only splits tracks "both"');
  await clock.advance(4000);
  t.same(await mono.stop(), { durationMs: 4000 });
  t.same(await mono.stop(), { durationMs: 4000 }, 'stop is idempotent');
  t.same(await dual.stop(), { durationMs: 4000 });
  await inbound.stop();

  const monoInfo = await readWavInfo(mono.file);
  t.same([monoInfo.channels, monoInfo.durationMs, monoInfo.sampleRate], [1, 4000, 8000]);
  t.ok(monoInfo.peak > 0.1);
  const split = await readWav(dual.file);
  t.equal(split.channels.length, 2);
  t.same(split.channels.map((c) => pitch(c, 8000)), [440, 660], 'caller and platform on their own channels');
  t.ok(split.channels.every((c) => rms(c) > 0.1), 'both channels carry audio');
  t.equal(pitch((await readWav(inbound.file)).channels[0]!, 8000), 440, 'inbound is the caller');
});

t.test('call recording: paused time is excluded', async (t) => {
  const { leg, clock, dir } = await answered(t);
  const rec = await leg.startCallRecording({ file: path.join(dir, 'paused.wav'), tracks: 'both', dualChannel: true });
  await clock.advance(1000);
  await rec.pause();
  await rec.pause();
  await clock.advance(2000);
  await rec.resume();
  await rec.resume();
  await clock.advance(2000);
  t.same(await rec.stop(), { durationMs: 3000 });
  await rec.resume();
  t.equal((await readWavInfo(rec.file)).durationMs, 3000);
});

t.test('early recording starts while ringing, survives answer, and is finalised by the hangup', async (t) => {
  const sb = await sandbox(t);
  const arriving = sb.nextIncoming();
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { hangupAfterMs: 3000 } });
  const incoming = await arriving;
  await incoming.ring();
  const rec = await incoming.startEarlyRecording({ file: path.join(sb.dir, 'early.wav'), tracks: 'both', dualChannel: false });
  await sb.clock.advance(2000);
  await incoming.answer();
  await sb.clock.advance(3000);
  t.same(call.transcript.map((e) => `${e.type}@${e.at}`), ['ringing@0', 'recording-started@0', 'answered@2000', 'recording-stopped@5000', 'hangup@5000']);
  t.equal((await readWavInfo(rec.file)).durationMs, 5000);
  t.same(await rec.stop(), { durationMs: 5000 });
});

t.test('rejecting a call finalises its early recording', async (t) => {
  const sb = await sandbox(t);
  const arriving = sb.nextIncoming();
  sb.engine.simulateInbound({ from: 'a', to: 'b' });
  const incoming = await arriving;
  const rec = await incoming.startEarlyRecording({ file: path.join(sb.dir, 'rejected.wav'), tracks: 'inbound', dualChannel: false });
  await sb.clock.advance(1200);
  await incoming.reject('busy');
  t.ok(existsSync(rec.file));
  t.equal((await readWavInfo(rec.file)).durationMs, 1200);
});

t.test('a recording that cannot be written fails stop(), not the hangup', async (t) => {
  const { leg, clock, dir } = await answered(t);
  const blocked = path.join(dir, 'vm.wav', 'inside-a-file.wav');
  const first = timed(clock, leg.record(recordOpts(path.join(dir, 'vm.wav'), { maxLengthMs: 100 })));
  await clock.advance(100);
  await first.done;
  const rec = await leg.startCallRecording({ file: blocked, tracks: 'both', dualChannel: false });
  await leg.hangup();
  t.ok(leg.isEnded);
  await t.rejects(rec.stop(), /cannot write/);
});
