// An ACD agent on a WebRTC seat (JsSIP in Chromium, opus) joined to a queued caller's room (G.711) sounds right both
// ways from the first packets, over many calls: the browser's fake microphone plays the agent's tone, the caller's
// phone says its own; the caller's packets are measured on RTP and the agent's hearing in the page, per 20 ms.
// Runs in a network namespace with only loopback, like the other WebRTC tests.
import { loopbackNetnsUnavailable } from '../../helpers/loopback-netns.js';
import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { agentIdle, listenFor, sendersReport, tally, toneCaller, v1 as preview, CALLS, CALLER_HZ, MEASURED_PACKETS, WAIT_MS, type PacketTones } from './support/leg-audio.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { tempDir } from '../../helpers/harness.js';
import { toneWav } from '../../helpers/media-origin.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { makeTrunk, scene, CALLER, DID } from '../../engine-suite/flows.js';
import { SKIP as NO_CHROMIUM } from '../../browser/chromium.js';
import { launchForWebrtc, WebrtcAgent } from '../../browser/webrtc-agent.js';

const AGENT_HZ = 450;

const bins = enginesOrSkip(t);
const unavailable = NO_CHROMIUM || loopbackNetnsUnavailable;
if (bins && unavailable) t.skip(`WebRTC seat audio test skipped: ${unavailable}`, () => {});
if (bins && !unavailable) {
  t.setTimeout(10 * 60_000);
  const make = realDrivers(t, bins);

  t.test(`an ACD agent on a WebRTC seat: caller and agent hear each other at their own pitch, ${CALLS} calls`, async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const v1 = (method: string, p: string, body?: Record<string, unknown>) => preview(d, method, p, body);
    const microphone = path.join(tempDir(t), 'agent-tone.wav');
    writeFileSync(microphone, toneWav(10, AGENT_HZ, 0.3));
    const trunk = await makeTrunk(d, { transport: 'wss' });
    const agent = await WebrtcAgent.open(await launchForWebrtc(t, microphone), {
      pageUrl: `${d.h.url}/healthz`, wsUrl: `wss://127.0.0.1:${d.engines.drachtio.wssPort}`, uri: `sip:${trunk.endpointName}@127.0.0.1`, password: trunk.password,
    });
    await agent.until('agent.registered', 15_000);
    await v1('POST', '/v1/queues', { friendly_name: 'support', wrap_up_seconds: 0 });
    const sid = (await v1('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: trunk.id, queues: ['support'] })).body.sid as string;
    await v1('POST', `/v1/agents/${sid}`, { status: 'available' });
    s.app.on('/voice', xml('<Say>Please hold.</Say><Enqueue>support</Enqueue>'));

    const calls = tally(t);
    for (let i = 0; i < CALLS; i++) {
      await agent.page.evaluate(() => Object.assign((window as unknown as { agent: object }).agent, { incoming: null, ended: null, confirmed: false }));
      await agent.measureTones([CALLER_HZ]);
      const caller = await toneCaller(t, d, CALLER, DID, CALLER_HZ);
      await agent.until('agent.incoming !== null', WAIT_MS);
      await agent.answer();
      const [callerHeard] = await Promise.all([
        listenFor(caller.phone, 0, [AGENT_HZ]),
        agent.page.waitForFunction(`window.agentToneWindows().windows >= ${MEASURED_PACKETS}`, undefined, { timeout: WAIT_MS, polling: 50 }).catch(() => undefined),
      ]);
      const page = await agent.toneWindows();
      const agentHeard: PacketTones = { packets: Math.min(page.windows, MEASURED_PACKETS), heard: page.heard, sixfold: 0, leaked: {} };
      calls.record(`call ${i + 1}`, [['caller hears agent', callerHeard], ['agent hears caller (20 ms windows in the page)', agentHeard]],
        await sendersReport({ caller: caller.phone }));
      await caller.hangup();
      await agent.until('agent.ended !== null', WAIT_MS);
      await until('the agent is free again', WAIT_MS, () => agentIdle(d, sid), 20);
    }
    calls.check('ACD agent on a WebRTC seat');
  });
}
