// Legs the platform dials into rooms sound right in both directions from their first packets, on the real engines,
// over many calls: participants added to a conference by the API (heard by a caller who joined by markup), and the
// customers of scheduled callbacks (the agent is rung first, then the customer joins the agent's room). Every party
// sends its own tone; each listener's packets are measured (support/leg-audio.ts). ACD agents and supervisors:
// dialled-leg-audio.test.ts.
import t from 'tap';
import { agentIdle, listenFor, sendersReport, sipSeat, tally, toneCaller, toneParty, v1, CALLS, CALLER_HZ, WAIT_MS } from './support/leg-audio.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import type { G711 } from '../../engine-suite/real-rtp.js';
import { makeTrunk, scene, CALLER, DID } from '../../engine-suite/flows.js';

const PARTY_HZ = [350, 450, 550];
const AGENT_HZ = 600;

const ended = (d: RealDriver, sid: string) =>
  until(`call ${sid} is over`, WAIT_MS, async () => (await d.h.store.calls.get(sid))?.endedAt != null, 20);

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(15 * 60_000);
  const make = realDrivers(t, bins);

  t.test(`participants added by the API: the caller in the room and each participant hear each other, ${CALLS} calls`, async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Dial><Conference>Standup</Conference></Dial>'));
    const caller = await toneCaller(t, d, CALLER, DID, CALLER_HZ);
    await until('the caller is in the room', WAIT_MS, async () => (await d.h.store.sql.one<{ n: number }>("SELECT COUNT(*) AS n FROM conferences WHERE friendly_name = 'Standup' AND status = 'in-progress'"))?.n === 1, 20);
    const calls = tally(t);
    for (let i = 0; i < CALLS; i++) {
      const hz = PARTY_HZ[i % PARTY_HZ.length]!;
      const codec: G711 = i % 2 ? 'PCMA' : 'PCMU';
      const number = `+1555333${String(i).padStart(4, '0')}`;
      const party = await toneParty(t, d, number, hz, codec);
      const mark = caller.phone.samples().length;
      const added = await v1(d, 'POST', '/v1/conferences/Standup/participants', { from: DID, to: number });
      if (added.status !== 201) t.fail(`participant add refused: ${JSON.stringify(added.body)}`);
      const [callerHeard, partyHeard] = await Promise.all([listenFor(caller.phone, mark, [hz], [], { senders: { [hz]: party.phone } }), listenFor(party.phone, 0, [CALLER_HZ], [], { senders: { [CALLER_HZ]: caller.phone } })]);
      calls.record(`participant ${i + 1} (answers ${codec})`, [['caller hears participant', callerHeard], ['participant hears caller', partyHeard]],
        await sendersReport({ caller: caller.phone, participant: party.phone }));
      const sid = added.body.call_sid as string;
      await v1(d, 'DELETE', `/v1/conferences/Standup/participants/${sid}`);
      await ended(d, sid);
    }
    calls.check('conference participant added by the API');
    await caller.hangup();
  });

  t.test(`scheduled callbacks: the agent and the customer, both dialled, hear each other, ${CALLS} calls`, async (t) => {
    const d = await make(t);
    await scene(t, d);
    const q = await v1(d, 'POST', '/v1/queues', { friendly_name: 'callbacks', wrap_up_seconds: 0, max_no_answer: 20 });
    if (q.status !== 201) throw new Error(JSON.stringify(q.body));
    const trunk = await makeTrunk(d, { transport: 'udp' });
    const seat = await sipSeat(t, d, trunk);
    const agent = (await v1(d, 'POST', '/v1/agents', { friendly_name: 'Agent', trunk_id: trunk.id, queues: ['callbacks'] })).body.sid as string;
    await v1(d, 'POST', `/v1/agents/${agent}`, { status: 'available' });
    const calls = tally(t);
    for (let i = 0; i < CALLS; i++) {
      const hz = PARTY_HZ[i % PARTY_HZ.length]!;
      const codec: G711 = i % 2 ? 'PCMA' : 'PCMU';
      const number = `+1555222${String(i).padStart(4, '0')}`;
      const seatPhone = await seat.answerNext(AGENT_HZ, codec);
      const customer = await toneParty(t, d, number, hz, codec === 'PCMA' ? 'PCMU' : 'PCMA');
      const made = await v1(d, 'POST', '/v1/callbacks', { queue: 'callbacks', to: number, from: DID, due_at: new Date(d.h.clock.now()).toISOString() });
      if (made.status !== 201) t.fail(`callback refused: ${JSON.stringify(made.body)}`);
      const [agentHeard, customerHeard] = await Promise.all([listenFor(seatPhone, 0, [hz], [], { senders: { [hz]: customer.phone } }), listenFor(customer.phone, 0, [AGENT_HZ], [], { senders: { [AGENT_HZ]: seatPhone } })]);
      calls.record(`callback ${i + 1} (seat answers ${codec})`, [['agent hears customer', agentHeard], ['customer hears agent', customerHeard]],
        await sendersReport({ agent: seatPhone, customer: customer.phone }));
      // The customer hangs up once measured.
      await customer.sipp.hangup();
      await until('the callback is over and the agent free', WAIT_MS, async () => (await v1(d, 'GET', `/v1/callbacks/${made.body.sid}`)).body.status === 'completed'
        && await agentIdle(d, agent), 50);
    }
    calls.check('callback customer');
  });
}
