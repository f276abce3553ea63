import t from 'tap';
import type { OriginateRequest, OriginateResult } from '../../../src/engine/port.js';
import { find, kinds, sandbox, timed, voice } from './_support.js';

const NUMBER = '+15551234567';
const dialling = (over: Partial<OriginateRequest> = {}): OriginateRequest =>
  ({ target: { kind: 'number', number: NUMBER }, callerId: '+15550000000', timeoutMs: 30_000, ...over });

t.test('answer: rings at 100 ms, answers at ringMs, and the party hears the leg', async (t) => {
  const sb = await sandbox(t);
  sb.engine.setParty(NUMBER, { behavior: 'answer', ringMs: 2000, hangupAfterMs: 1000 });
  let rangAt: number | undefined;
  const result = timed(sb.clock, sb.engine.originate(dialling({ onRinging: () => { rangAt = sb.clock.now(); } })));
  await sb.clock.advance(1999);
  t.equal(result.value, undefined, 'still ringing');
  t.equal(rangAt, 100);
  await sb.clock.advance(1);
  const outcome = result.value!;
  if (!outcome.answered) return t.fail('expected an answer');
  const { leg } = outcome;
  t.same([leg.from, leg.to], ['+15550000000', NUMBER]);
  const [party] = sb.engine.partyCalls(NUMBER);
  t.equal(party?.id, leg.id);
  void leg.say('Your code is 1234', voice);
  await sb.clock.advance(1000);
  t.same(await leg.ended, { cause: 'normal', by: 'remote' }, 'the party hung up as scripted');
  t.same(party!.transcript.map((e) => `${e.type}@${e.at}`), ['ringing@100', 'answered@2000', 'heard-say@2000', 'hangup@3000']);
  t.equal(sb.engine.activeLegs(), 0);
  t.equal(sb.clock.pendingTimers, 0);
});

t.test('refusals: busy, fail and reject end the attempt with their SIP status', async (t) => {
  const sb = await sandbox(t);
  const cases = [
    ['busy', { answered: false, cause: 'busy', sipStatus: 486 }, ['rejected', 'hangup']],
    ['fail', { answered: false, cause: 'failed', sipStatus: 503 }, ['rejected', 'hangup']],
    ['reject', { answered: false, cause: 'rejected', sipStatus: 603 }, ['ringing', 'rejected', 'hangup']],
  ] as const;
  for (const [behavior, expected, transcript] of cases) {
    const address = `+1555000${behavior.length}${behavior}`;
    sb.engine.setParty(address, { behavior });
    let rang = 0;
    const result = timed(sb.clock, sb.engine.originate(dialling({ target: { kind: 'number', number: address }, onRinging: () => rang++ })));
    await sb.clock.advance(1000);
    t.same(result.value, expected, behavior);
    t.equal(result.at, sb.clock.now(), 'at the default ring time');
    t.equal(rang, behavior === 'reject' ? 1 : 0, 'only a ringing phone calls onRinging');
    const [party] = sb.engine.partyCalls(address);
    t.same(kinds(party!), transcript);
    t.same(await party!.ended, { cause: expected.cause, by: 'remote', sipStatus: expected.sipStatus });
  }
  t.equal(sb.engine.activeLegs(), 0);
});

t.test('no-answer rings until the request times out', async (t) => {
  const sb = await sandbox(t);
  sb.engine.setParty(NUMBER, { behavior: 'no-answer' });
  const result = timed(sb.clock, sb.engine.originate(dialling({ timeoutMs: 5000 })));
  await sb.clock.advance(60_000);
  t.same(result.value, { answered: false, cause: 'no-answer' });
  t.equal(result.at, 5000);
  const [party] = sb.engine.partyCalls(NUMBER);
  t.same(party!.transcript, [{ type: 'ringing', at: 100 }, { type: 'hangup', cause: 'no-answer', by: 'local', at: 5000 }]);
});

t.test('a timeout shorter than the ring time is a no-answer even for a party that would answer', async (t) => {
  const sb = await sandbox(t);
  sb.engine.setParty(NUMBER, { behavior: 'answer', ringMs: 8000 });
  const result = timed(sb.clock, sb.engine.originate(dialling({ timeoutMs: 8000 })));
  await sb.clock.advance(10_000);
  t.same(result.value, { answered: false, cause: 'no-answer' });
  t.equal(result.at, 8000);
});

t.test('aborting cancels the attempt; an already-aborted signal cancels at once', async (t) => {
  const sb = await sandbox(t);
  sb.engine.setParty(NUMBER, { behavior: 'no-answer' });
  const abort = new AbortController();
  const result = timed(sb.clock, sb.engine.originate(dialling({ signal: abort.signal })));
  await sb.clock.advance(500);
  abort.abort();
  await sb.clock.advance(0);
  t.same(result.value, { answered: false, cause: 'canceled' });
  t.equal(result.at, 500);
  t.same(await sb.engine.partyCalls(NUMBER)[0]!.ended, { cause: 'canceled', by: 'local' });

  const early = await sb.engine.originate(dialling({ signal: AbortSignal.abort() }));
  t.same(early, { answered: false, cause: 'canceled' });
  t.equal(sb.engine.activeLegs(), 0);
  t.equal(sb.clock.pendingTimers, 0);
});

t.test('aborting after answer changes nothing', async (t) => {
  const sb = await sandbox(t);
  const abort = new AbortController();
  const result = timed(sb.clock, sb.engine.originate(dialling({ signal: abort.signal })));
  await sb.clock.advance(1000);
  t.equal(result.value?.answered, true, 'unscripted numbers answer after 1 s');
  abort.abort();
  t.equal(sb.engine.activeLegs(), 1);
  if (result.value?.answered) await result.value.leg.hangup();
  t.equal(sb.engine.activeLegs(), 0);
});

t.test('targets map to party addresses; a declining party hangs up before answer', async (t) => {
  const sb = await sandbox(t);
  sb.engine.setParty('trunk:pbx-1', { behavior: 'no-answer' });
  const targets = [
    { kind: 'sip', uri: 'sip:alice@example.com' },
    { kind: 'client', identity: 'bob' },
    { kind: 'trunk', endpointName: 'pbx-1', number: '2001' },
  ] as const;
  const results = targets.map((target) => sb.engine.originate(dialling({ target })));
  await sb.clock.advance(500);
  const [trunkParty] = sb.engine.partyCalls('trunk:pbx-1');
  trunkParty!.hangup();
  await sb.clock.advance(500);
  const outcomes: OriginateResult[] = await Promise.all(results);
  t.same(outcomes.map((o) => o.answered), [true, true, false]);
  t.same(outcomes[2], { answered: false, cause: 'rejected', sipStatus: 603 });
  t.equal(sb.engine.partyCalls('sip:alice@example.com').length, 1);
  t.equal(sb.engine.partyCalls('client:bob').length, 1);
  if (outcomes[0]?.answered) t.equal(outcomes[0].leg.to, 'sip:alice@example.com');
  t.same(sb.engine.partyCalls('nobody'), []);
  for (const o of outcomes) if (o.answered) await o.leg.hangup();
});

t.test('an outbound party follows its gather script and a throwing onRinging is harmless', async (t) => {
  const sb = await sandbox(t);
  sb.engine.setParty(NUMBER, { behavior: 'answer', gatherInput: ['1'] });
  const result = timed(sb.clock, sb.engine.originate(dialling({ onRinging: () => { throw new Error('oops'); } })));
  await sb.clock.advance(1000);
  if (!result.value?.answered) return t.fail('expected an answer');
  const leg = result.value.leg;
  const digits = timed(sb.clock, leg.collectDigits({ prompts: [{ kind: 'say', text: 'Press 1 to accept', ...voice }], numDigits: 1, timeoutMs: 5000, finishOnKey: '' }));
  await sb.clock.advance(5000);
  t.same(digits.value, { digits: '1', reason: 'num-digits' });
  t.same(find(sb.engine.partyCalls(NUMBER)[0]!, 'pressed').map((e) => e.digit), ['1']);
  await leg.hangup();
});
