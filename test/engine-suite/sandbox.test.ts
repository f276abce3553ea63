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
  const steps = (c: typeof call) => c.transcript.map((e) => e.type).filter((type) => type !== 'ringing' && type !== 'hangup');
  t.same(steps(call), ['early-media', 'heard-ringback', 'answered', 'bridged']);
  const answeredAt = call.transcript.find((e) => e.type === 'answered')!.at;
  t.ok(answeredAt >= ringMs, `answered ${answeredAt} ms after arriving, once the party had rung ${ringMs} ms`);
  t.match((await d.h.store.calls.timeline((await s.finalCall()).sid)).find((e) => e.kind === 'dial-result'), { detail: { status: 'completed' } });

  d.h.engine.setParty(party, { behavior: 'no-answer' });
  s.app.on('/voice', xml(`<Dial answerOnBridge="true" timeout="5"><Number>${party}</Number></Dial><Say>Nobody answered.</Say>`));
  const unanswered = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await unanswered.ended;
  t.same(steps(unanswered), ['early-media', 'heard-ringback', 'answered', 'heard-say'], 'the Dial gave up with the caller unanswered; the Say answered it');
  t.match((await d.h.store.calls.timeline((await s.finalCall()).sid)).find((e) => e.kind === 'dial-result'), { detail: { status: 'no-answer' } });

  s.app.on('/voice', xml(`<Say>Hello.</Say><Dial answerOnBridge="true"><Number>${party}</Number></Dial>`));
  d.h.engine.setParty(party, { behavior: 'answer', hangupAfterMs: 500 });
  const answered = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await answered.ended;
  t.notOk(answered.transcript.some((e) => e.type === 'early-media'), 'a caller answered already hears the ringback in the call, as without the option');
});
