// The ACD with a browser agent on the real engines: JsSIP in Chromium registers as an agent's wss seat, a sipp
// caller who keeps talking enters <Enqueue>, the seat rings (late offer), the agent answers and hears the caller's
// speech (measured in the browser: the only audio in the agent's room is the caller's), the agent hangs up, the
// Enqueue action hears "bridged", and the disposition set over the API arrives as a signed event. Runs in a network
// namespace with only loopback, like the other WebRTC tests.
import { loopbackNetnsUnavailable } from '../../helpers/loopback-netns.js';
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { final, makeTrunk, scene, CALLER, DID } from '../../engine-suite/flows.js';
import { xml } from '../../helpers/webhook-app.js';
import { SKIP as NO_CHROMIUM } from '../../browser/chromium.js';
import { launchForWebrtc, WebrtcAgent } from '../../browser/webrtc-agent.js';
import { createSecretBox } from '../../../src/crypto/secret-box.js';

const bins = enginesOrSkip(t);
const unavailable = NO_CHROMIUM || loopbackNetnsUnavailable;
if (bins && unavailable) t.skip(`ACD browser agent test skipped: ${unavailable}`, () => {});
if (bins && !unavailable) {
  t.setTimeout(2 * 60_000);
  const make = realDrivers(t, bins);

  t.test('a queued caller is offered to a browser agent, who answers, hears the caller and sets a disposition', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const v1 = (method: string, path: string, body?: Record<string, unknown>) =>
      d.h.request(method, path, { ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });
    await d.h.store.orgSettings.allowHost(s.accountId, '127.0.0.1');
    s.app.on('/events', { body: '' });
    await d.h.store.webhookSubscriptions.create({
      accountId: s.accountId, eventType: 'disposition', targetUrl: `${s.app.url}/events`, deliveryMode: 'async',
      timeoutMs: 5_000, maxRetries: 0, secretSealed: createSecretBox(d.h.masterKey).seal('whsec_test'), payloadTemplate: null,
    });

    const seat = await makeTrunk(d, { transport: 'wss' });
    const agent = await WebrtcAgent.open(await launchForWebrtc(t), {
      pageUrl: `${d.h.url}/healthz`, wsUrl: `wss://127.0.0.1:${d.engines.drachtio.wssPort}`, uri: `sip:${seat.endpointName}@127.0.0.1`, password: seat.password,
    });
    await agent.until('agent.registered', 15_000);
    await v1('POST', '/v1/queues', { friendly_name: 'support', wrap_up_seconds: 600 });
    const created = await v1('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: seat.id, queues: ['support'] });
    await v1('POST', `/v1/agents/${created.body.sid}`, { status: 'available' });

    s.app.on('/voice', xml('<Say>Please hold.</Say><Enqueue action="/after">support</Enqueue>'));
    s.app.on('/after', xml('<Hangup/>'));
    const call = await d.inbound(CALLER, DID, { speakMs: 20_000 });
    const ringing = await agent.until('agent.incoming !== null', 15_000);
    t.equal(ringing.incoming!.hasOffer, false, 'the seat rings with a late-offer INVITE');
    t.equal(ringing.audibleAt, null, 'nothing heard before answering');
    await agent.answer();
    const heard = await agent.until('agent.audibleAt !== null', 15_000);
    t.ok(heard.peak > 0.05, `the agent hears the caller (peak ${heard.peak.toFixed(3)})`);
    const busy = (await v1('GET', `/v1/agents/${created.body.sid}`)).body;
    t.match(busy, { activity: 'busy', current_call_sid: /^CA/ });

    await agent.hangup();
    const after = await s.app.waitFor('/after');
    t.match(after.json, { queue_result: 'bridged', agent_sid: created.body.sid });
    await call.ended;
    t.equal((await final(d, busy.current_call_sid)).status, 'completed');
    t.match((await v1('GET', `/v1/agents/${created.body.sid}`)).body, { activity: 'wrap-up' });
    const set = await v1('POST', '/v1/dispositions', { call_sid: busy.current_call_sid, disposition: 'resolved' });
    t.equal(set.status, 201);
    const event = await s.app.waitFor('/events');
    t.match(event.json, { event_type: 'disposition', call_sid: busy.current_call_sid, data: { disposition: 'resolved', set_by: created.body.sid } });
    t.ok(event.headers['x-service-signature'] ?? event.headers['webhook-signature'], 'signed');
    t.match((await v1('GET', `/v1/agents/${created.body.sid}`)).body, { activity: 'idle' });
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });
}
