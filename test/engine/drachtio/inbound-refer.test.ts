// A caller's side asking the platform to transfer it (an in-dialog REFER from a carrier, PBX or seat) is declined
// with 603 on the real engines: transfers asked by the far end are not offered, and a 200 would have told the
// transferor one was under way. The call itself goes on until the caller hangs up.
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { xml } from '../../helpers/webhook-app.js';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(5 * 60_000);
  const make = realDrivers(t, bins);

  t.test('an in-dialog REFER from the caller is answered 603 Decline; the call goes on', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Say>Please hold.</Say><Pause length="30"/>'));
    const call = await d.inbound(CALLER, DID, { referTo: 'sip:+15550009999@127.0.0.1' });
    // sipp's scenario fails unless the REFER is answered exactly 603; then the caller hangs up itself.
    const code = await call.ended;
    t.equal(code, 0, 'the REFER was declined with 603');
    if (code !== 0) t.comment(`sipp: ${call.sipp.output().slice(-800)}`);
    const final = await s.finalCall();
    t.equal(final.status, 'completed');
    const ended = (await d.h.store.calls.timeline(final.sid)).find((e) => e.kind === 'ended');
    t.match(ended?.detail, { cause: 'normal', by: 'remote' }, 'ended by the caller\'s BYE, not by the REFER');
    t.equal(s.app.requests.length, 1, 'no transfer was attempted (nothing else asked of the webhook)');
  });
}
