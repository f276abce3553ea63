// POST /api/calls with machine_detection on the sandbox engine, whose scripted parties sound like a person, a
// machine ending in a beep or in silence, or a fax (PartyScript.audio): answered_by on the call resource, in the
// document request (answered_by) and in the status callbacks (AnsweredBy), and on the call's timeline; the document
// is asked for only after detection. Bad settings get 422 before anything is placed.
import t from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { final, scene, DID } from '../engine-suite/flows.js';
import { xml } from '../helpers/webhook-app.js';
import type { FarEndAudio } from '../../src/engine/sandbox/index.js';

const PARTY = '+15550004444';

const CASES: Array<[FarEndAudio, 'enable' | 'detect_message_end', string]> = [
  ['person', 'enable', 'human'],
  ['machine-beep', 'enable', 'machine_start'],
  ['machine-beep', 'detect_message_end', 'machine_end_beep'],
  ['machine-silence', 'detect_message_end', 'machine_end_silence'],
  ['fax', 'enable', 'fax'],
];

for (const [audio, mode, expected] of CASES) {
  t.test(`a party that sounds like ${audio}, machine_detection ${mode}: answered_by ${expected}`, async (t) => {
    const d = await sandboxDriver(t);
    const s = await scene(t, d);
    // The party stays until the platform hangs up (the document's <Hangup/>): a hang-up of its own at a fixed time
    // came, on the sandbox's fast clock on a loaded machine, before detection had decided, and nothing was asked.
    await d.party(PARTY, { behavior: 'answer', audio });
    s.app.on('/outbound', xml('<Hangup/>'));
    s.app.on('/cb', { body: '' });
    const res = await d.h.request('POST', '/api/calls', {
      body: { from: DID, to: PARTY, url: `${s.app.url}/outbound`, machine_detection: mode, status_callback: `${s.app.url}/cb` },
    });
    t.equal(res.status, 201, JSON.stringify(res.body));
    const hook = await s.app.waitFor('/outbound');
    t.same(hook.json, { from: DID, to: PARTY, direction: 'outbound-api', call_sid: res.body.sid, answered_by: expected }, 'the document request says what answered');
    const done = await final(d, res.body.sid);
    t.equal(done.answeredBy, expected);
    t.equal((await d.h.request('GET', `/api/calls/${res.body.sid}`)).body.answered_by, expected, 'the call resource');
    t.equal((await s.app.waitFor('/cb')).form.get('AnsweredBy'), expected, 'the completed status callback');
    const detected = (await d.h.store.sql.all<{ detail: string }>("SELECT detail FROM call_timeline WHERE call_sid = ? AND kind = 'machine-detection'", [res.body.sid]))
      .map((r) => JSON.parse(r.detail) as { answered_by: string; final?: boolean });
    t.equal(detected.at(-1)?.answered_by, expected, 'on the timeline');
    if (mode === 'detect_message_end') t.equal(detected[0]?.answered_by, 'machine_start', 'a machine\'s start first, then its end');
  });
}

t.test('without machine_detection nothing is detected: answered_by null, no AnsweredBy, the document asked at once', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  await d.party(PARTY, { behavior: 'answer', audio: 'machine-beep' });
  s.app.on('/outbound', xml('<Hangup/>'));
  const res = await d.h.request('POST', '/api/calls', { body: { from: DID, to: PARTY, url: `${s.app.url}/outbound` } });
  t.same((await s.app.waitFor('/outbound')).json, { from: DID, to: PARTY, direction: 'outbound-api', call_sid: res.body.sid });
  t.equal((await final(d, res.body.sid)).answeredBy, null);
  t.equal((await d.h.request('GET', `/api/calls/${res.body.sid}`)).body.answered_by, null);
});

t.test('bad machine detection settings: 422 naming the field, nothing placed', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const place = (extra: Record<string, unknown>) => d.h.request('POST', '/api/calls', { body: { from: DID, to: PARTY, url: `${s.app.url}/outbound`, ...extra } });
  for (const [extra, field] of [
    [{ machine_detection: 'sometimes' }, 'machine_detection'],
    [{ machine_detection: 'enable', machine_detection_timeout: 60 }, 'machine_detection_timeout'],
    [{ machine_detection: 'enable', machine_detection_speech_threshold: 500 }, 'machine_detection_speech_threshold'],
    [{ machine_detection_timeout: 10 }, 'machine_detection_timeout'],
  ] as const) {
    const res = await place(extra);
    t.equal(res.status, 422, `${JSON.stringify(extra)}: ${JSON.stringify(res.body)}`);
    t.match(JSON.stringify(res.body), field, `names ${field}`);
  }
  t.equal((await d.h.store.sql.one<{ n: number }>('SELECT count(*) AS n FROM calls'))!.n, 0, 'nothing placed');
});
