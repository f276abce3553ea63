import t from 'tap';
import { callFlowSuite } from './suite.js';
import { sandboxDriver } from './sandbox-driver.js';
import { callsApiSuite } from './calls-suite.js';
import { conferenceSuite } from './conference-suite.js';
import { acdSuite } from './acd-suite.js';
import { fallbackSuite } from './fallback-suite.js';
import { callControlSuite } from './call-control-suite.js';
import { redirectSuite } from './redirect-suite.js';
import { scene, CALLER, DID } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import type { SimulatedCall } from '../../src/engine/sandbox/index.js';

/** What a simulated party went through, in order, without its ringing and hang-up: what it heard said, and keys sent. */
const steps = (c: SimulatedCall | undefined) => (c?.transcript ?? [])
  .map((e) => (e.type === 'heard-say' ? `say ${e.text}` : e.type === 'heard-keys' ? `keys ${e.digits}` : e.type))
  .filter((step) => step !== 'ringing' && step !== 'hangup');

/**
 * Resolves once the party at `address` is bridged. Simulated time runs 50 times faster than the real webhooks a
 * party's screening fetches, so a party that hangs up on a simulated timer can be gone before a loaded machine
 * serves them: these tests end the call from the caller's side once the bridge is there.
 */
const bridged = (d: { h: { engine: { partyCalls(address: string): SimulatedCall[] } } }, address: string) =>
  until(`${address} bridged`, 10_000, () => steps(d.h.engine.partyCalls(address)[0]).includes('bridged'));

callFlowSuite(t, (tt) => sandboxDriver(tt));
callsApiSuite(t, (tt) => sandboxDriver(tt));
conferenceSuite(t, (tt) => sandboxDriver(tt));
acdSuite(t, (tt) => sandboxDriver(tt));
fallbackSuite(t, (tt) => sandboxDriver(tt));
callControlSuite(t, (tt) => sandboxDriver(tt));
redirectSuite(t, (tt) => sandboxDriver(tt));

t.test('Refer on the sandbox: the simulated caller accepts the transfer; the action hears it done, or the call ends', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/voice', xml('<Refer action="/referred"><Sip>sip:alice@pbx.example.com</Sip></Refer>'));
  s.app.on('/referred', xml('<Say>Done.</Say><Hangup/>'));
  const call = await d.inbound(CALLER, DID);
  await call.ended;
  t.match(s.app.requests.find((r) => r.path === '/referred')?.json, { refer_call_status: 'completed', refer_sip_response_code: 202, notify_sip_response_code: 200 });
  t.equal((await s.finalCall()).hangupCause, 'markup-hangup');

  s.app.on('/voice', xml('<Refer><Sip>sip:alice@pbx.example.com</Sip></Refer><Say>Never heard.</Say>'));
  const second = await d.inbound(CALLER, DID);
  await second.ended;
  t.equal((await s.finalCall()).hangupCause, 'refer-completed', 'without an action a transfer done ends the call');
  t.notOk(second.heard()?.includes('Never heard.'));
});

t.test('answerOnBridge on the sandbox: ringback as early media, the answer only once the dialled party answers; none, and the caller is still unanswered', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const party = '+15558880005';
  const ringMs = 3_000;
  d.h.engine.setParty(party, { behavior: 'answer', ringMs, hangupAfterMs: 1_000 });
  s.app.on('/voice', xml(`<Dial answerOnBridge="true"><Number>${party}</Number></Dial><Hangup/>`));
  const call = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await call.ended;
  t.same(steps(call), ['early-media', 'heard-ringback', 'answered', 'bridged']);
  const answeredAt = call.transcript.find((e) => e.type === 'answered')!.at;
  t.ok(answeredAt >= ringMs, `answered ${answeredAt} ms after arriving, once the party had rung ${ringMs} ms`);
  t.match((await d.h.store.calls.timeline((await s.finalCall()).sid)).find((e) => e.kind === 'dial-result'), { detail: { status: 'completed' } });

  d.h.engine.setParty(party, { behavior: 'no-answer' });
  s.app.on('/voice', xml(`<Dial answerOnBridge="true" timeout="5"><Number>${party}</Number></Dial><Say>Nobody answered.</Say>`));
  const unanswered = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await unanswered.ended;
  t.same(steps(unanswered), ['early-media', 'heard-ringback', 'answered', 'say Nobody answered.'], 'the Dial gave up with the caller unanswered; the Say answered it');
  t.match((await d.h.store.calls.timeline((await s.finalCall()).sid)).find((e) => e.kind === 'dial-result'), { detail: { status: 'no-answer' } });

  s.app.on('/voice', xml(`<Say>Hello.</Say><Dial answerOnBridge="true"><Number>${party}</Number></Dial>`));
  d.h.engine.setParty(party, { behavior: 'answer', hangupAfterMs: 500 });
  const answered = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await answered.ended;
  t.notOk(answered.transcript.some((e) => e.type === 'early-media'), 'a caller answered already hears the ringback in the call, as without the option');
});

t.test('Dial screening and sendDigits on the sandbox: keys then the url document reach the party alone; a <Hangup> there declines it and the Dial waits for the next target', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const [first, second] = ['+15558880005', '+15558880006'];
  // The first answers at once and declines in screening; the second answers once the first is gone, and accepts.
  // (Answering on simulated time instead, the second now and then answered during the first's screening on a loaded
  // machine, won, and cut that screening short.) The timeout is far beyond it all.
  let firstDeclined!: () => void;
  d.h.engine.setParty(first, { behavior: 'answer', ringMs: 500 });
  d.h.engine.setParty(second, { behavior: 'answer', ringMs: 4_000, answerAfter: new Promise<void>((resolve) => { firstDeclined = resolve; }) });
  s.app.on('/voice', xml(`<Dial action="/after" timeout="600"><Number sendDigits="w12#" url="/screen-no">${first}</Number><Number url="/screen-yes">${second}</Number></Dial>`));
  s.app.on('/screen-no', () => {
    void d.h.engine.partyCalls(first).at(-1)!.ended.then(() => firstDeclined());
    return xml('<Say>Not for you.</Say><Hangup/>');
  });
  s.app.on('/screen-yes', xml('<Say>A call for you.</Say>'));
  s.app.on('/after', xml('<Hangup/>'));
  const call = await d.inbound(CALLER, DID);
  await bridged(d, second);
  call.hangup();
  await call.ended;
  const [declined] = d.h.engine.partyCalls(first);
  const [accepted] = d.h.engine.partyCalls(second);
  t.same(steps(declined), ['answered', 'keys w12#', 'say Not for you.'], 'the first party got its keys, then its screening, and was hung up');
  t.same(steps(accepted), ['answered', 'say A call for you.', 'bridged'], 'the second was screened, then connected');
  t.notOk(call.heard()?.some((text) => text.includes('for you')), 'the caller heard neither screening');
  const parent = await s.finalCall();
  const timeline = await d.h.store.calls.timeline(parent.sid);
  t.ok(timeline.some((e) => e.kind === 'dial-declined'), 'the timeline says the first party declined');
  t.match(timeline.find((e) => e.kind === 'dial-result'), { detail: { status: 'completed' } }, 'the Dial completed with the second party');
  const screen = s.app.requests.find((r) => r.path === '/screen-yes')?.json as Record<string, unknown>;
  t.match(screen, { parent_call_sid: parent.sid, direction: 'outbound-dial' }, 'the screening request names the caller\'s call');

  d.h.engine.setParty(first, { behavior: 'answer', ringMs: 500 });
  // The timeout is far beyond the decline, so no-answer here comes from the decline, not from the clock.
  s.app.on('/voice', xml(`<Dial action="/after" timeout="600"><Number url="/screen-no">${first}</Number></Dial>`));
  const dialledAt = d.h.engine.now();
  const alone = await d.inbound(CALLER, DID);
  await alone.ended;
  t.ok(d.h.engine.now() - dialledAt < 600_000, 'the Dial ended at the decline, before its timeout');
  t.match(s.app.requests.filter((r) => r.path === '/after').at(-1)?.json, { dial_call_status: 'no-answer' }, 'every party declined: no-answer');
  t.ok((await d.h.store.calls.timeline((await s.finalCall()).sid)).some((e) => e.kind === 'dial-declined'), 'and the party was declined');
});

t.test("a plan's hangupAfterMs counts from the answer, as sipp's does: a webhook slower than it still finds the caller", async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  // 5000 simulated ms are 100 real ms at the sandbox's speed; the webhook takes three times that, as a loaded machine may.
  s.app.on('/voice', () => new Promise((resolve) => { setTimeout(() => resolve(xml('<Say loop="0">Please hold.</Say>')), 300); }));
  const call = await d.inbound(CALLER, DID, { hangupAfterMs: 5000 });
  await call.ended;
  t.equal((await s.finalCall()).status, 'completed', 'answered, then hung up by the caller');
  t.ok(call.heard()?.includes('Please hold.'), 'and heard the document first');
});
