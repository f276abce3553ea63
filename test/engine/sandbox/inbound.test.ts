import t from 'tap';
import { EngineError, type CallLeg, type CollectOptions } from '../../../src/engine/port.js';
import { SandboxEngine } from '../../../src/engine/sandbox/index.js';
import { FakeClock } from '../../../src/clock.js';
import { find, kinds, sandbox, timed, voice } from './_support.js';

const say = (text: string) => ({ kind: 'say' as const, text, ...voice });
const collect = (opts: Partial<CollectOptions>): CollectOptions => ({ prompts: [], timeoutMs: 5000, finishOnKey: '', ...opts });

t.test('answer, say, then collect: gatherInput is typed 100 ms after the prompts, 50 ms a key', async (t) => {
  const sb = await sandbox(t);
  const arriving = sb.nextIncoming();
  const call = sb.engine.simulateInbound({ from: '+15550001111', to: '+15550002222', caller: { gatherInput: ['42#'] } });
  const incoming = await arriving;
  t.equal(incoming.id, call.id, 'both sides name the call alike');
  t.same([incoming.from, incoming.to], ['+15550001111', '+15550002222']);
  t.same(incoming.source, { kind: 'carrier', name: 'sandbox' }, 'default source');
  await incoming.ring();
  const leg = await incoming.answer();
  t.equal(await incoming.answer(), leg, 'answer is idempotent');

  const result = timed(sb.clock, (async () => {
    await leg.say('Welcome', voice); // 7 chars → 420 ms
    return leg.collectDigits(collect({ prompts: [say('Enter your code')], finishOnKey: '#' })); // 900 ms
  })());
  await sb.clock.advance(10_000);
  await result.done;
  t.same(result.value, { digits: '42', reason: 'finish-key' });
  t.equal(result.at, 1520, 'prompts end at 1320; keys at 1420, 1470, 1520');
  t.same(call.transcript, [
    { type: 'ringing', at: 0 },
    { type: 'answered', at: 0 },
    { type: 'heard-say', text: 'Welcome', ...voice, at: 0 },
    { type: 'heard-say', text: 'Enter your code', ...voice, at: 420 },
    { type: 'pressed', digit: '4', at: 1420 },
    { type: 'pressed', digit: '2', at: 1470 },
    { type: 'pressed', digit: '#', at: 1520 },
  ]);

  await leg.hangup();
  await leg.hangup();
  t.same(await call.ended, { cause: 'normal', by: 'local' });
  t.same(await leg.ended, { cause: 'normal', by: 'local' });
  t.same(call.transcript.at(-1), { type: 'hangup', cause: 'normal', by: 'local', at: 10_000 }, 'one hangup, however often called');
  t.equal(sb.engine.activeLegs(), 0);
  t.equal(sb.clock.pendingTimers, 0, 'no timers left behind');
});

t.test('timed digits after answer satisfy numDigits', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { digits: [{ atMs: 2000, keys: '7' }] } });
  await sb.clock.advance(0);
  const result = timed(sb.clock, leg.collectDigits(collect({ prompts: [say('Hi')], numDigits: 1 })));
  await sb.clock.advance(6000);
  t.same(result.value, { digits: '7', reason: 'num-digits' });
  t.equal(result.at, 2000);
});

t.test('keys typed during the prompts count and cut the prompts short; timeout then runs from the last key', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { digits: [{ atMs: 500, keys: '12' }] } });
  await sb.clock.advance(0);
  const prompts = [say('x'.repeat(50)), { kind: 'play' as const, media: { file: '/tmp/menu.wav', source: 'https://example.com/menu.wav' } }];
  const result = timed(sb.clock, leg.collectDigits(collect({ prompts, numDigits: 3, timeoutMs: 3000 })));
  await sb.clock.advance(10_000);
  t.same(result.value, { digits: '12', reason: 'timeout' });
  t.equal(result.at, 3550, 'keys at 500 and 550, then 3 s of nothing');
  t.same(find(call, 'heard-play'), [], 'the second prompt never started');
});

t.test('type-ahead: keys pressed before collectDigits are used and skip its prompts', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { digits: [{ atMs: 100, keys: '5' }] } });
  await sb.clock.advance(0);
  const result = timed(sb.clock, (async () => {
    await leg.say('Hello there', voice); // 660 ms
    return leg.collectDigits(collect({ prompts: [say('Press a key')], numDigits: 1 }));
  })());
  await sb.clock.advance(1000);
  t.same(result.value, { digits: '5', reason: 'num-digits' });
  t.equal(result.at, 660);
  t.same(find(call, 'heard-say').map((e) => e.text), ['Hello there']);
});

t.test('numDigits leaves extra keys buffered for the next collection', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { gatherInput: ['123'] } });
  await sb.clock.advance(0);
  const first = timed(sb.clock, leg.collectDigits(collect({ numDigits: 2 })));
  await sb.clock.advance(1000);
  t.same(first.value, { digits: '12', reason: 'num-digits' });
  t.equal(first.at, 150);
  const second = timed(sb.clock, leg.collectDigits(collect({ numDigits: 1 })));
  await sb.clock.advance(1000);
  t.same(second.value, { digits: '3', reason: 'num-digits' });
  t.equal(second.at, 1000, 'already buffered');
});

t.test('finishOnKey alone ends with no digits; it is never part of the result', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { gatherInput: ['#', '9*'] } });
  await sb.clock.advance(0);
  const first = timed(sb.clock, leg.collectDigits(collect({ finishOnKey: '#' })));
  await sb.clock.advance(1000);
  t.same(first.value, { digits: '', reason: 'finish-key' });
  const second = timed(sb.clock, leg.collectDigits(collect({ finishOnKey: '' , timeoutMs: 1000 })));
  await sb.clock.advance(3000);
  t.same(second.value, { digits: '9*', reason: 'timeout' }, "'' disables the finish key: * and # are digits");
});

t.test('timeout: from the end of the prompts when nothing is typed, and between keys', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { gatherInput: ['', '1'] } });
  await sb.clock.advance(0);
  const silent = timed(sb.clock, leg.collectDigits(collect({ prompts: [{ kind: 'pause', seconds: 1 }], timeoutMs: 3000 })));
  await sb.clock.advance(10_000);
  t.same(silent.value, { digits: '', reason: 'timeout' });
  t.equal(silent.at, 4000);
  t.same(find(call, 'heard-pause'), [{ type: 'heard-pause', ms: 1000, at: 0 }]);

  const partial = timed(sb.clock, leg.collectDigits(collect({ prompts: [say('Hi')], numDigits: 4, timeoutMs: 2000 })));
  await sb.clock.advance(10_000);
  t.same(partial.value, { digits: '1', reason: 'timeout' });
  t.equal(partial.at, 10_000 + 300 + 100 + 2000);
});

t.test('the caller hanging up mid-say ends media early, and later media resolves at once', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { hangupAfterMs: 1000 } });
  await sb.clock.advance(0);
  const hangups: unknown[] = [];
  leg.on('hangup', (info) => hangups.push(info));
  const spoken = timed(sb.clock, leg.say('x'.repeat(100), voice)); // would take 6 s
  await sb.clock.advance(2000);
  t.equal(spoken.at, 1000, 'say resolved when the caller left');
  t.same(await call.ended, { cause: 'normal', by: 'remote' });
  t.ok(leg.isEnded);
  t.same(hangups, [{ cause: 'normal', by: 'remote' }]);
  t.same(call.transcript.at(-1), { type: 'hangup', cause: 'normal', by: 'remote', at: 1000 });

  const before = call.transcript.length;
  await leg.say('anyone there?', voice);
  await leg.play({ file: '/tmp/a.wav', source: 'https://example.com/a.wav' });
  t.same(await leg.collectDigits(collect({ prompts: [say('x')] })), { digits: '', reason: 'timeout' });
  t.equal(call.transcript.length, before, 'nothing is heard after hangup');
  t.equal(sb.engine.activeLegs(), 0);
  t.equal(sb.clock.pendingTimers, 0);
});

t.test('a collection in progress resolves with what was typed when the caller hangs up', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { digits: [{ atMs: 100, keys: '12' }] } });
  await sb.clock.advance(0);
  const result = timed(sb.clock, leg.collectDigits(collect({ timeoutMs: 60_000 })));
  await sb.clock.advance(500);
  call.hangup();
  await sb.clock.advance(0);
  t.same(result.value, { digits: '12', reason: 'timeout' });
  t.equal(result.at, 500);
});

t.test('the caller gives up before answer', async (t) => {
  const sb = await sandbox(t);
  const arriving = sb.nextIncoming();
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { hangupBeforeAnswerAfterMs: 3000 } });
  const incoming = await arriving;
  await incoming.ring();
  await sb.clock.advance(3000);
  t.same(await incoming.ended, { cause: 'caller-hangup', by: 'remote' });
  t.same(call.transcript, [{ type: 'ringing', at: 0 }, { type: 'hangup', cause: 'caller-hangup', by: 'remote', at: 3000 }]);
  await t.rejects(incoming.answer(), EngineError, 'nothing left to answer');
  await incoming.reject('busy');
  t.equal(call.transcript.length, 2, 'rejecting a gone call is a no-op');
  t.equal(sb.engine.activeLegs(), 0);
});

t.test('hangupAfterMs counts from arrival while unanswered, from answer once answered', async (t) => {
  const sb = await sandbox(t);
  const arriving = sb.nextIncoming();
  const unanswered = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { hangupAfterMs: 2000 } });
  await arriving;
  await sb.clock.advance(2000);
  t.same(await unanswered.ended, { cause: 'caller-hangup', by: 'remote' });

  const arriving2 = sb.nextIncoming();
  const answered = sb.engine.simulateInbound({ from: 'a', to: 'b', caller: { hangupAfterMs: 2000, hangupBeforeAnswerAfterMs: 5000 } });
  const incoming = await arriving2;
  await sb.clock.advance(1500);
  await incoming.answer();
  await sb.clock.advance(1999);
  t.notOk(answered.isEnded, 'the pre-answer deadline is gone once answered');
  await sb.clock.advance(1);
  t.same(await answered.ended, { cause: 'normal', by: 'remote' });
  t.equal(answered.transcript.at(-1)?.at, 3500);
});

t.test('reject: busy and declined', async (t) => {
  const sb = await sandbox(t);
  for (const [reason, cause, sipStatus] of [['busy', 'busy', 486], ['rejected', 'rejected', 603], ['unavailable', 'rejected', 480]] as const) {
    const arriving = sb.nextIncoming();
    const call = sb.engine.simulateInbound({ from: 'a', to: 'b' });
    const incoming = await arriving;
    await incoming.reject(reason);
    t.same(await incoming.ended, { cause, by: 'local', sipStatus });
    t.same(kinds(call), ['rejected', 'hangup']);
    t.same(call.transcript[0], { type: 'rejected', reason, at: 0 });
  }
  t.equal(sb.engine.activeLegs(), 0);
});

t.test('dtmf events reach listeners until they are removed', async (t) => {
  const sb = await sandbox(t);
  let leg!: CallLeg;
  sb.answerWith(async (l) => { leg = l; });
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b' });
  await sb.clock.advance(0);
  const heard: string[] = [];
  const listener = (d: string) => heard.push(d);
  leg.on('dtmf', listener);
  call.press('12');
  await sb.clock.advance(100);
  leg.off('dtmf', listener);
  call.press('3');
  t.same(heard, ['1', '2']);
  t.same(find(call, 'pressed').map((e) => [e.digit, e.at]), [['1', 0], ['2', 50], ['3', 100]]);
});

t.test('simulateInbound needs a handler; a throwing handler fails the call', async (t) => {
  const engine = new SandboxEngine(new FakeClock(0));
  t.throws(() => engine.simulateInbound({ from: 'a', to: 'b' }), EngineError);
  engine.onIncomingCall(() => { throw new Error('boom'); });
  t.throws(() => engine.simulateInbound({ from: 'a', to: 'b', source: { kind: 'trunk', endpointName: 'pbx' } }), /boom/);
  t.equal(engine.activeLegs(), 0);
});

t.test('onEvent streams events live and can unsubscribe', async (t) => {
  const sb = await sandbox(t);
  const arriving = sb.nextIncoming();
  const call = sb.engine.simulateInbound({ from: 'a', to: 'b' });
  const seen: string[] = [];
  const stop = call.onEvent((e) => seen.push(`${e.type}@${e.at}`));
  const incoming = await arriving;
  await sb.clock.advance(250);
  const leg = await incoming.answer();
  const paused = leg.pause(100);
  await sb.clock.advance(100);
  await paused;
  stop();
  await leg.hangup();
  t.same(seen, ['answered@250', 'heard-pause@250']);
});
