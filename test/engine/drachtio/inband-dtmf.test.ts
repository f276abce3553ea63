// In-band DTMF on the real engines: a caller whose SDP offers no telephone-event presses keys as tones in its
// audio (ITU-T Q.23 pairs, A-law); FreeSWITCH's spandsp detector must turn them into the Gather's digits. No RFC
// 2833 event is sent, and without telephone-event in the SDP FreeSWITCH detects tones only where the leg asked it to.
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const make = realDrivers(t, bins);

  t.test('keys sent as tones (no telephone-event offered) reach Gather as digits', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Gather numDigits="2" action="/digits"><Say>Enter two digits</Say></Gather><Say>No input.</Say>'));
    s.app.on('/digits', xml('<Hangup/>'));
    // 4 and 9 share neither a row nor a column: both tones of each key are told apart.
    const call = await d.inbound(CALLER, DID, { gatherInput: ['49'], inband: true });
    await call.ended;
    const got = await s.app.waitFor('/digits');
    t.equal(got.json.digits, '49', 'Digits are the keys sent as tones');
    t.equal((await s.finalCall()).status, 'completed');
  });
}
