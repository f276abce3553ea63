// A WebRTC seat on the real engines: JsSIP in Chromium registers as a wss trunk over drachtio's secure WebSocket
// listener (the harness's self-signed certificate, which the browser is told to accept). Called by the platform
// (late-offer INVITE; the seat's DTLS-SRTP/ICE offer is answered by FreeSWITCH) it answers, hears the platform
// speak and hangs up; calling out, its offer is answered through the trunk's voice webhook. The whole file runs
// in a network namespace with only loopback, so the browser has no other address to offer or use.
import { loopbackNetnsUnavailable } from '../../helpers/loopback-netns.js';
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { final, lastTrunkCall, makeTrunk, scene, DID } from '../../engine-suite/flows.js';
import { until } from '../../helpers/waits.js';
import { jssipSnippet } from '../../../src/http/dashboard/views/trunk.js';
import { JSSIP_ASSET_PATH } from '../../../src/http/dashboard/jssip.js';
import { SKIP as NO_CHROMIUM } from '../../browser/chromium.js';
import { launchForWebrtc, openSnippetPage, WebrtcAgent } from '../../browser/webrtc-agent.js';

const LOOPBACK_MEDIA = { local: '127.0.0.1', remote: '127.0.0.1', protocol: 'udp' };

/** A wss trunk and a browser registered with its credentials. */
async function seat(t: Test, d: RealDriver): Promise<{ agent: WebrtcAgent; endpointName: string; trunkId: number }> {
  const created = await d.h.request('POST', '/api/partner/trunks', { body: { transport: 'wss' } });
  t.equal(created.status, 201, JSON.stringify(created.body));
  await d.h.app.trunks.settled();
  const endpointName = created.body.endpoint_name as string;
  const agent = await WebrtcAgent.open(await launchForWebrtc(t), {
    pageUrl: `${d.h.url}/healthz`,
    wsUrl: `wss://127.0.0.1:${d.engines.drachtio.wssPort}`,
    uri: `sip:${endpointName}@127.0.0.1`,
    password: created.body.connection.password as string,
  });
  await agent.until('agent.registered || agent.registrationFailed', 15_000);
  t.equal((await agent.state()).registrationFailed, null, 'digest REGISTER over wss accepted');
  return { agent, endpointName, trunkId: created.body.id as number };
}


const bins = enginesOrSkip(t);
const unavailable = NO_CHROMIUM || loopbackNetnsUnavailable;
if (bins && unavailable) t.skip(`WebRTC seat test skipped: ${unavailable}`, () => {});
if (bins && !unavailable) {
  t.setTimeout(2 * 60_000);
  const make = realDrivers(t, bins);

  t.test('the platform calls the agent: it rings, the agent answers, hears the platform and hangs up', async (t) => {
    const d = await make(t);
    await scene(t, d);
    const { agent, endpointName } = await seat(t, d);
    const [binding] = await d.engine.registrations(endpointName);
    t.equal(binding?.transport, 'wss', 'the seat is registered as a secure WebSocket (WebRTC) binding');

    const placed = await d.h.request('POST', '/api/calls', {
      body: { from: DID, to: `client:${endpointName}`, markup: '<Response><Say>Hello agent, this is Ringbase calling.</Say><Pause length="30"/></Response>', timeout: 20 },
    });
    t.equal(placed.status, 201, JSON.stringify(placed.body));
    const ringing = await agent.until('agent.incoming !== null', 15_000);
    t.equal(ringing.incoming!.hasOffer, false, 'late-offer INVITE: the seat makes the DTLS/ICE offer');

    await agent.answer();
    const heard = await agent.until('agent.audibleAt !== null', 15_000);
    t.ok(heard.peak > 0.05, `the agent hears the platform speak (peak ${heard.peak.toFixed(3)})`);
    t.equal((await d.h.store.calls.get(placed.body.sid))!.status, 'in-progress', 'the call is in progress');
    t.same(await agent.mediaPath(), LOOPBACK_MEDIA, 'DTLS-SRTP media over loopback only');

    await agent.hangup();
    const call = await final(d, placed.body.sid);
    t.equal(call.status, 'completed', 'the agent hanging up completes the call');
    t.ok(call.answeredAt, 'answered');
    t.equal((await agent.state()).ended, 'Terminated', 'the agent saw its own hang-up end the call');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });

  t.test('the agent calls out: the trunk webhook answers with markup the agent hears', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const { agent, trunkId } = await seat(t, d);
    await d.h.store.trunks.updateSettings(trunkId, { voice_webhook_url: `${s.app.url}/seat-voice` });
    s.app.on('/seat-voice', { type: 'application/xml', body: '<Response><Say>You are through to Ringbase.</Say><Pause length="30"/></Response>' });

    await agent.call('sip:+15550002222@127.0.0.1');
    const heard = await agent.until('agent.audibleAt !== null || agent.ended !== null', 15_000);
    t.equal(heard.ended, null, 'the call was taken (digest-challenged INVITE over wss, DTLS offer answered)');
    t.ok(heard.confirmed && heard.peak > 0.05, `the agent hears the webhook's markup (peak ${heard.peak.toFixed(3)})`);
    t.match((await s.app.waitFor('/seat-voice')).body, /\+15550002222/, 'the webhook was asked about the dialled number');
    t.same(await agent.mediaPath(), LOOPBACK_MEDIA, 'DTLS-SRTP media over loopback only');

    await agent.hangup();
    const call = await final(d, await lastTrunkCall(d));
    t.equal(call.status, 'completed', 'the agent hanging up completes the call');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });

  t.test("the dashboard's JsSIP snippet, pasted as it is, registers, answers a call from the platform and plays it", async (t) => {
    const d = await make(t);
    await scene(t, d);
    const { id, endpointName, password } = await makeTrunk(d, { transport: 'wss' });
    const connection = (await d.h.request('GET', `/api/partner/trunks/${id}/connection`)).body;
    // The customer fills in the password; the harness's listener stands in for the public wss URL. Their page is on
    // another origin (their own site, here localhost) and imports JsSIP from the platform's.
    const jssipUrl = `${d.h.url}${JSSIP_ASSET_PATH}`;
    const snippet = jssipSnippet({ ...connection, wss_url: `wss://127.0.0.1:${d.engines.drachtio.wssPort}` }, [], jssipUrl)
      .replace('YOUR_SIP_PASSWORD', password);
    const { agent, imported } = await openSnippetPage(await launchForWebrtc(t), `${d.h.url.replace('127.0.0.1', 'localhost')}/healthz`, snippet);
    await until('the snippet to register', 15_000, async () => (await d.engine.registrations(endpointName)).length > 0, 20);
    t.same(imported, [jssipUrl], "JsSIP comes from the platform, across origins, as an ES module: no CDN, no Internet");

    const placed = await d.h.request('POST', '/api/calls', {
      body: { from: DID, to: `client:${endpointName}`, markup: '<Response><Say>Hello from Ringbase to your new agent page.</Say><Pause length="2"/><Hangup/></Response>', timeout: 20 },
    });
    t.equal(placed.status, 201, JSON.stringify(placed.body));
    const heard = await agent.until('agent.audibleAt !== null', 15_000);
    t.ok(heard.peak > 0.05, `the snippet answers and plays the platform's speech (peak ${heard.peak.toFixed(3)})`);
    const call = await final(d, placed.body.sid);
    t.equal(call.status, 'completed', 'the platform hung up after its markup');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });
}
