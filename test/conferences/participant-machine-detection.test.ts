// A conference participant added with machine_detection, on the sandbox engine (whose scripted party sounds like a
// machine ending in a beep): detection decides before the participant joins; the participant resource, its call and
// the join's status callback (AnsweredBy) say what answered. Tuning without machine_detection is refused (400 naming
// the field) before any conference is created.
import t from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { v1 } from '../engine-suite/conference-suite.js';
import { final, scene, DID } from '../engine-suite/flows.js';
import { until } from '../helpers/waits.js';

const PARTY = '+15550005555';

t.test('a participant added with detect_message_end: answered_by machine_end_beep on the participant, its call and the join callback', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  await d.party(PARTY, { behavior: 'answer', audio: 'machine-beep' });
  s.app.on('/conf', { status: 204, body: '' });
  const added = await v1(d, 'POST', '/v1/conferences/Dialout/participants', {
    from: DID, to: PARTY, machine_detection: 'detect_message_end', status_callback: `${s.app.url}/conf`,
  });
  t.equal(added.status, 201, JSON.stringify(added.body));
  t.match(added.body, { status: 'connecting', answered_by: null }, 'not known while it rings');
  const confSid = added.body.conference_sid as string;
  const participant = async () => (await v1(d, 'GET', `/v1/conferences/${confSid}/participants`)).body.participants[0];
  await until('the participant joined', 20_000, async () => (await participant()).status === 'in-progress', 20);
  t.match(await participant(), { answered_by: 'machine_end_beep' });
  const joinCallback = () => s.app.requests.find((r) => r.path === '/conf' && r.form.get('StatusCallbackEvent') === 'participant-join');
  await until('the join callback', 10_000, () => joinCallback() !== undefined, 20);
  const join = joinCallback()!;
  t.equal(join.form.get('AnsweredBy'), 'machine_end_beep', 'the join callback says what answered');
  t.equal(join.form.get('CallSid'), added.body.call_sid);
  await v1(d, 'POST', `/v1/conferences/${confSid}`, { status: 'completed' });
  t.equal((await final(d, added.body.call_sid)).answeredBy, 'machine_end_beep', "the participant's call");
});

t.test('detection tuning without machine_detection: 400 naming the field, no conference created', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const added = await v1(d, 'POST', '/v1/conferences/Dialout/participants', { from: DID, to: PARTY, machine_detection_timeout: '10' });
  t.equal(added.status, 400, JSON.stringify(added.body));
  t.match(added.body.error, { param: 'machine_detection_timeout', message: /needs machine_detection/ });
  const bad = await v1(d, 'POST', '/v1/conferences/Dialout/participants', { from: DID, to: PARTY, machine_detection: 'always' });
  t.match(bad.body.error, { param: 'machine_detection' });
  t.equal(await d.h.store.conferences.openByName(s.accountId, 'Dialout'), undefined, 'no conference created');
});
