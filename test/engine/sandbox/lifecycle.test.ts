import t from 'tap';
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { CallLeg } from '../../../src/engine/port.js';
import { readWavInfo } from '../../../src/engine/sandbox/index.js';
import { find, sandbox, timed } from './_support.js';

async function twoLegs(t: Parameters<typeof sandbox>[0], caller = {}) {
  const sb = await sandbox(t);
  let inbound!: CallLeg;
  sb.answerWith(async (l) => { inbound = l; });
  const caller_ = sb.engine.simulateInbound({ from: '+15550001111', to: '+15550002222', caller });
  const dialled = sb.engine.originate({ target: { kind: 'number', number: '+15557654321' }, callerId: '+15550002222', timeoutMs: 30_000 });
  await sb.clock.advance(1000);
  const result = await dialled;
  if (!result.answered) throw new Error('expected the callee to answer');
  const callee = sb.engine.partyCalls('+15557654321')[0]!;
  return { ...sb, inbound, outbound: result.leg, caller: caller_, callee };
}

t.test('bridge resolves when the far side hangs up, leaving this leg up', async (t) => {
  const { clock, inbound, outbound, caller, callee, engine } = await twoLegs(t);
  const bridged = timed(clock, inbound.bridge(outbound));
  await clock.advance(2000);
  t.equal(bridged.value, undefined, 'still bridged');
  t.same(find(caller, 'bridged'), [{ type: 'bridged', to: outbound.id, at: 1000 }]);
  t.same(find(callee, 'bridged'), [{ type: 'bridged', to: inbound.id, at: 1000 }]);
  callee.hangup();
  await clock.advance(0);
  t.equal(bridged.at, 3000);
  t.notOk(inbound.isEnded, 'the other leg is left up');
  t.equal(engine.activeLegs(), 1);
  await inbound.hangup();
  t.equal(engine.activeLegs(), 0);
});

t.test('bridge resolves when this side hangs up too', async (t) => {
  const { clock, inbound, outbound } = await twoLegs(t, { hangupAfterMs: 5000 });
  const bridged = timed(clock, outbound.bridge(inbound));
  await clock.advance(5000);
  t.equal(bridged.at, 5000);
  t.notOk(outbound.isEnded);
  await outbound.hangup();
  t.same(await outbound.bridge(inbound).then(() => 'immediately'), 'immediately', 'bridging an ended leg is a no-op');
});

t.test('re-bridging replaces the previous bridge', async (t) => {
  const { clock, inbound, outbound, engine } = await twoLegs(t);
  const pending = engine.originate({ target: { kind: 'client', identity: 'dave' }, callerId: 'x', timeoutMs: 5000 });
  await clock.advance(1000);
  const dave = await pending;
  if (!dave.answered) return t.fail('expected dave to answer');
  const first = timed(clock, inbound.bridge(outbound));
  await clock.advance(0);
  const second = timed(clock, inbound.bridge(dave.leg));
  await clock.advance(0);
  t.ok(first.at !== undefined, 'the first bridge ended');
  t.equal(second.at, undefined, 'the new one holds');
  await dave.leg.hangup();
  await clock.advance(0);
  t.ok(second.at !== undefined);
  for (const leg of [inbound, outbound]) await leg.hangup();
});

t.test('hangup cascades: recordings finalised, record() and bridge settled, nothing left running', async (t) => {
  const { clock, dir, inbound, outbound, caller, engine } = await twoLegs(t);
  const rec = await inbound.startCallRecording({ file: path.join(dir, 'call.wav'), tracks: 'both', dualChannel: true });
  const bridged = timed(clock, inbound.bridge(outbound));
  const voicemail = timed(clock, outbound.record({ file: path.join(dir, 'vm.wav'), maxLengthMs: 60_000, silenceTimeoutMs: 0, finishOnKey: '', beep: false }));
  await clock.advance(2500);
  t.equal(engine.activeLegs(), 2);

  await inbound.hangup();
  t.ok(existsSync(rec.file), 'the file is final as soon as hangup returns');
  const info = await readWavInfo(rec.file);
  t.same([info.channels, info.durationMs], [2, 2500]);
  t.same(await rec.stop(), { durationMs: 2500 });
  await clock.advance(0);
  t.equal(bridged.at, 3500, 'clock time: the legs were set up during the first second');
  t.equal(voicemail.value, undefined, 'the other leg is still recording');
  t.same(caller.transcript.slice(-2).map((e) => e.type), ['recording-stopped', 'hangup']);

  await outbound.hangup();
  await clock.advance(0);
  t.same(voicemail.value, { file: path.join(dir, 'vm.wav'), durationMs: 2500, reason: 'hangup' });
  t.equal(engine.activeLegs(), 0);
  t.equal(clock.pendingTimers, 0);
});

t.test('stopping the engine ends every call in progress', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b' });
  sb.engine.setParty('+1555', { behavior: 'no-answer' });
  const ringing = sb.engine.originate({ target: { kind: 'number', number: '+1555' }, callerId: 'b', timeoutMs: 60_000 });
  await sb.clock.advance(0);
  await sb.engine.stop();
  t.same(await call.ended, { cause: 'normal', by: 'local' });
  t.ok(leg.isEnded);
  t.same(await ringing, { answered: false, cause: 'failed', sipStatus: 503 });
  t.equal(sb.engine.health().ok, false);
  t.equal(sb.engine.activeLegs(), 0);
  t.equal(sb.clock.pendingTimers, 0);
});

t.test('trunk provisioning still completes on the next tick and refuses a missing password', async (t) => {
  const sb = await sandbox(t);
  const ok = sb.engine.provisionTrunk({ endpointName: 'pbx', password: 'pw', transport: 'udp' });
  const bad = t.rejects(sb.engine.provisionTrunk({ endpointName: 'pbx2', password: null, transport: 'udp' }), /no usable password/);
  t.notOk(sb.engine.acceptsLogin('pbx', 'pw'), 'not before the tick');
  await sb.clock.advance(0);
  await ok;
  await bad;
  t.ok(sb.engine.acceptsLogin('pbx', 'pw'));
  await sb.engine.deprovisionTrunk('pbx');
  t.notOk(sb.engine.acceptsLogin('pbx', 'pw'));
});
