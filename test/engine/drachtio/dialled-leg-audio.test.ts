// ACD legs the platform dials and joins to the caller's room sound right in both directions from their first
// packets, on the real engines, over many calls (the defect this guards against varied call to call): an agent on
// a SIP seat, and a supervisor called in while they talk, in each mode. Every party sends its own tone; each
// listener's packets are measured (support/leg-audio.ts). Rooms of participants and callbacks: dialled-room-audio.
import t from 'tap';
import { agentIdle, heardOnset, listenFor, sendersReport, sipSeat, tally, toneCaller, toneParty, v1, whyNoAgent, CALLS, CALLER_HZ, WAIT_MS } from './support/leg-audio.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import type { G711 } from '../../engine-suite/real-rtp.js';
import { makeTrunk, scene, CALLER, DID } from '../../engine-suite/flows.js';

const AGENT_HZ = [350, 450, 550];
const SUPERVISOR_HZ = 650;

/** A queue with one available agent on a SIP seat; callers to the DID say hello, then wait in it. */
async function staffed(t: Parameters<typeof sipSeat>[0], d: RealDriver) {
  const s = await scene(t, d);
  // A failed offer (a media server too slow under load) must not put the agent on break for the calls after it.
  const q = await v1(d, 'POST', '/v1/queues', { friendly_name: 'support', wrap_up_seconds: 0, max_no_answer: 20 });
  if (q.status !== 201) throw new Error(JSON.stringify(q.body));
  const trunk = await makeTrunk(d, { transport: 'udp' });
  const seat = await sipSeat(t, d, trunk);
  const agent = (await v1(d, 'POST', '/v1/agents', { friendly_name: 'Agent', trunk_id: trunk.id, queues: ['support'] })).body.sid as string;
  await v1(d, 'POST', `/v1/agents/${agent}`, { status: 'available' });
  s.app.on('/voice', xml('<Say>Please hold.</Say><Enqueue>support</Enqueue>'));
  const idle = () => until('the agent is free again', WAIT_MS, () => agentIdle(d, agent), 20);
  return { seat, agent, idle };
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(20 * 60_000);
  const make = realDrivers(t, bins);

  t.test(`an ACD agent on a SIP seat: caller and agent hear each other at their own pitch, ${CALLS} calls`, async (t) => {
    const d = await make(t);
    const { seat, idle } = await staffed(t, d);
    const calls = tally(t);
    for (let i = 0; i < CALLS; i++) {
      const agentHz = AGENT_HZ[i % AGENT_HZ.length]!;
      const codec: G711 = i % 2 ? 'PCMA' : 'PCMU';
      const seatRtp = await seat.answerNext(agentHz, codec);
      const call = await toneCaller(t, d, CALLER, DID, CALLER_HZ);
      const [callerHeard, agentHeard] = await Promise.all([listenFor(call.phone, 0, [agentHz], [], { senders: { [agentHz]: seatRtp } }), listenFor(seatRtp, 0, [CALLER_HZ], [], { senders: { [CALLER_HZ]: call.phone } })]);
      calls.record(`call ${i + 1} (seat answers ${codec})`, [['caller hears agent', callerHeard], ['agent hears caller', agentHeard]],
        await sendersReport({ caller: call.phone, agent: seatRtp }));
      await call.hangup();
      await idle();
    }
    calls.check('ACD agent on a SIP seat');
  });

  t.test(`a supervisor called in to monitor, whisper and barge: everyone hears whom the mode says, ${CALLS} calls`, async (t) => {
    const d = await make(t);
    const { seat, agent, idle } = await staffed(t, d);
    const modes = ['monitor', 'whisper', 'barge'] as const;
    const calls = Object.fromEntries(modes.map((m) => [m, tally(t)]));
    for (let i = 0; i < CALLS; i++) {
      const agentHz = AGENT_HZ[i % AGENT_HZ.length]!;
      const codec: G711 = i % 2 ? 'PCMA' : 'PCMU';
      const seatRtp = await seat.answerNext(agentHz, codec);
      const call = await toneCaller(t, d, CALLER, DID, CALLER_HZ);
      if (!(await heardOnset(call.phone, 0, [agentHz]))) {
        // Nothing to call a supervisor into: each mode counts the call as failed, with what the caller heard.
        const heard = await listenFor(call.phone, 0, [agentHz], [], { ms: 0 });
        const why = await whyNoAgent(d, agent, seat);
        for (const mode of modes) calls[mode]!.record(`call ${i + 1}, ${mode} (phones answer ${codec}): before the supervisor`, [['caller hears agent', heard]], why);
      } else {
        for (const [n, mode] of modes.entries()) {
          const number = `+1555444${String(i * modes.length + n).padStart(4, '0')}`;
          const supervisor = await toneParty(t, d, number, SUPERVISOR_HZ, codec);
          const asked = await v1(d, 'POST', `/v1/agents/${agent}/monitor`, { to: number, mode });
          if (asked.status !== 201) t.fail(`monitor refused: ${JSON.stringify(asked.body)}`);
          // The supervisor's leg is measured from its first packets; the others once it is in the room (a member
          // joining can cost the others a frame or two while the room takes it in).
          await heardOnset(supervisor.phone, 0, [CALLER_HZ, agentHz]);
          const marks = { caller: call.phone.samples().length, agent: seatRtp.samples().length };
          const agentHearsSupervisor = mode !== 'monitor';
          const callerHearsSupervisor = mode === 'barge';
          const phones = { senders: { [CALLER_HZ]: call.phone, [agentHz]: seatRtp, [SUPERVISOR_HZ]: supervisor.phone } };
          const [supervisorHeard, agentHeard, callerHeard] = await Promise.all([
            listenFor(supervisor.phone, 0, [CALLER_HZ, agentHz], [], phones),
            listenFor(seatRtp, marks.agent, agentHearsSupervisor ? [CALLER_HZ, SUPERVISOR_HZ] : [CALLER_HZ], agentHearsSupervisor ? [] : [SUPERVISOR_HZ], phones),
            listenFor(call.phone, marks.caller, callerHearsSupervisor ? [agentHz, SUPERVISOR_HZ] : [agentHz], callerHearsSupervisor ? [] : [SUPERVISOR_HZ], phones),
          ]);
          const senders = await sendersReport({ caller: call.phone, agent: seatRtp, supervisor: supervisor.phone });
          const why = supervisorHeard.packets === 0
            ? `${senders}; supervisor's call: ${JSON.stringify(await d.h.store.calls.get(asked.body.call_sid))}; sipp: ${supervisor.sipp.output().slice(-800)}` : senders;
          calls[mode]!.record(`call ${i + 1}, ${mode} (phones answer ${codec})`,
            [['supervisor hears both', supervisorHeard], ['agent', agentHeard], ['caller', callerHeard]], why);
          // Each supervisor hangs up once measured, making room for the next mode's.
          await supervisor.sipp.hangup();
          await until('the supervisor call is over', WAIT_MS, async () => (await d.h.store.calls.get(asked.body.call_sid))?.endedAt != null, 20);
        }
      }
      await call.hangup();
      await idle();
    }
    for (const mode of modes) calls[mode]!.check(`supervisor in ${mode} mode`);
  });
}
