// <Refer> on the real engines: the caller's side (a sipp phone) receives SIP REFER with the document's target in
// Refer-To, accepts it and reports the transfer done (NOTIFY, sipfrag 200); the platform then ends its call, or
// asks the action with the outcome. A target the SIP target policy refuses is never sent.
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';

const TARGET = 'sip:alice@pbx.example.com';
const TARGET_PATTERN = 'sip:alice@pbx\\.example\\.com';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const make = realDrivers(t, bins);

  t.test('without an action: the caller gets REFER to the target, reports it done, and the platform hangs up', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml(`<Say>Transferring you.</Say><Refer><Sip>${TARGET}</Sip></Refer><Say>Never heard.</Say>`));
    const call = await d.inbound(CALLER, DID, { referredTo: TARGET_PATTERN });
    t.equal(await call.ended, 0, `sipp got REFER with Refer-To ${TARGET} and a BYE after its NOTIFY: ${call.sipp.output().slice(-300)}`);
    const final = await s.finalCall();
    t.equal(final.hangupCause, 'refer-completed');
    t.match((await d.h.store.calls.timeline(final.sid)).find((e) => e.kind === 'refer-result'), { detail: { transferred: true, refer_status: 202, notify_status: 200 } });
  });

  t.test('with an action: it hears refer_call_status completed, the REFER and NOTIFY statuses, and its document runs', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml(`<Refer action="/referred"><Sip>${TARGET}</Sip></Refer>`));
    s.app.on('/referred', xml('<Hangup/>'));
    const call = await d.inbound(CALLER, DID, { referredTo: TARGET_PATTERN });
    t.equal(await call.ended, 0, call.sipp.output().slice(-300));
    const asked = s.app.requests.find((r) => r.path === '/referred');
    t.match(asked?.json, { refer_call_status: 'completed', refer_sip_response_code: 202, notify_sip_response_code: 200 });
    t.equal((await s.finalCall()).hangupCause, 'markup-hangup');
  });

  t.test('a target the SIP target policy refuses is never sent: the action hears failed', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Refer action="/referred"><Sip>sip:alice@169.254.169.254</Sip></Refer>'));
    s.app.on('/referred', xml('<Hangup/>'));
    // A plain caller: an unexpected REFER would fail its scenario.
    const call = await d.inbound(CALLER, DID);
    t.equal(await call.ended, 0, call.sipp.output().slice(-300));
    const final = await s.finalCall();
    t.match((await d.h.store.calls.timeline(final.sid)).find((e) => e.kind === 'refer-refused'), { detail: { to: 'sip:alice@169.254.169.254' } });
    t.match(s.app.requests.find((r) => r.path === '/referred')?.json, { refer_call_status: 'failed', refer_sip_response_code: null });
  });
}
