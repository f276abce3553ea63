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
