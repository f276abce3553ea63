// <Dial><Number machineDetection> on the sandbox engine, whose scripted party sounds like a person or a machine
// ending in a beep: detection runs once the party answers, before the bridge; the Dial action gets answered_by and
// the dialled leg's call keeps it. Without machineDetection the action has no answered_by.
import t from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { scene, CALLER, DID } from '../engine-suite/flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import type { FarEndAudio } from '../../src/engine/sandbox/index.js';

const PARTY = '+15550004444';

const CASES: Array<[FarEndAudio, string, string | undefined]> = [
  ['person', ' machineDetection="Enable"', 'human'],
  ['machine-beep', ' machineDetection="DetectMessageEnd" machineDetectionTimeout="20"', 'machine_end_beep'],
  ['machine-beep', '', undefined],
];

for (const [audio, attributes, expected] of CASES) {
  t.test(`a dialled party that sounds like ${audio}${attributes}: the action's answered_by is ${expected ?? 'absent'}`, async (t) => {
    const d = await sandboxDriver(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'answer', audio });
    s.app.on('/voice', xml(`<Dial action="/after"><Number${attributes}>${PARTY}</Number></Dial>`));
    s.app.on('/after', xml('<Hangup/>'));
    const call = await d.inbound(CALLER, DID);
    // The party stays on the line until the bridge is there, then leaves: a hang-up of its own at a fixed simulated
    // time could come, on the sandbox's fast clock, before detection had decided.
    const party = () => d.h.engine.partyCalls(PARTY)[0];
    await until('the party is bridged', 20_000, () => party()?.transcript.some((e) => e.type === 'bridged') === true, 20);
    await party()!.hangup();
    const after = await s.app.waitFor('/after');
    t.equal(after.json.dial_call_status, 'completed');
    t.equal(after.json.answered_by, expected, 'the Dial action says what answered');
    const leg = (await d.h.store.calls.get(after.json.dial_call_sid as string))!;
    t.equal(leg.answeredBy, expected ?? null, "the dialled leg's call");
    await call.ended;
  });
}
