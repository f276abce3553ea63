// Calls to a registered PBX trunk on the real engines: `POST /api/calls` with `trunk_id` sends the INVITE to the
// contact the PBX registered, with the dialled extension in the user part, and plays the call's markup to it.
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { realDrivers, udpPortTaken } from '../../engine-suite/real-driver.js';
import { runParty, runRegister } from '../../engine-suite/real-sipp.js';
import { final, makeTrunk, scene, DID } from '../../engine-suite/flows.js';

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(2 * 60_000);
  const make = realDrivers(t, bins);

  t.test('an API call through a registered trunk reaches the PBX, is answered and hung up by the platform', async (t) => {
    const d = await make(t);
    await scene(t, d);
    const trunk = await makeTrunk(d, { transport: 'udp' });
    const pbxPort = await freePort();
    t.equal(await (await runRegister(d.sipTarget, pbxPort, trunk, d.scratch)).exited, 0, 'the PBX registered');
    const pbx = await runParty(pbxPort, { behavior: 'answer' }, d.scratch);
    t.teardown(() => pbx.kill());
    await udpPortTaken(pbxPort);

    const placed = await d.h.request('POST', '/api/calls', {
      body: { from: DID, to: '1001', trunk_id: trunk.id, markup: '<Response><Say>Hello extension one thousand and one.</Say><Hangup/></Response>' },
    });
    t.equal(placed.status, 201, JSON.stringify(placed.body));
    t.equal(await pbx.exited, 0, "the PBX took the call and got the platform's BYE", { sipp: pbx.output().slice(-500) });
    const call = await final(d, placed.body.sid);
    t.equal(call.status, 'completed', 'completed');
    t.ok(call.answeredAt, 'answered');
    t.equal(call.trunkId, trunk.id, 'went through the trunk');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });

  t.test('an API call through a trunk with no live registration fails without dialling', async (t) => {
    const d = await make(t);
    await scene(t, d);
    const trunk = await makeTrunk(d, { transport: 'udp' });
    const placed = await d.h.request('POST', '/api/calls', { body: { from: DID, to: '1001', trunk_id: trunk.id, markup: '<Response/>' } });
    t.equal(placed.status, 201, 'accepted: placing it is asynchronous');
    t.equal((await final(d, placed.body.sid)).status, 'failed', 'nowhere to send it');
  });
}
