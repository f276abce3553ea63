// Conference flows on every engine: a caller joins by markup, a participant is added through the preview API,
// the conference ends through the API or when an end-on-exit participant leaves; states, legs and callbacks.
import type { Test } from 'tap';
import type { EngineDriver } from './driver.js';
import { final, scene, CALLER, DID } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';

type MakeDriver = (t: Test) => Promise<EngineDriver>;
const PARTY = '+15550005555';
const JOIN_MS = 20_000;

/** A preview API request, form-encoded as the spec sends it, over HTTPS through the trusted proxy. */
function v1(d: EngineDriver, method: string, path: string, form?: Record<string, string>) {
  return d.h.request(method, path, {
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    headers: { 'x-forwarded-proto': 'https', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
  });
}

const inRoom = (d: EngineDriver, confSid: () => string | undefined, n: number) =>
  until(`${n} participants in the room`, JOIN_MS, () => {
    const sid = confSid();
    return sid !== undefined && d.h.store.conferences.countInProgress(sid) === n;
  }, 20);

export function conferenceSuite(t: Test, make: MakeDriver): void {
  t.test('a caller by markup and a participant by the API meet; ending through the API hangs up both; callbacks in order', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    d.party(PARTY, { behavior: 'answer' });
    s.app.on('/voice', xml(`<Dial><Conference statusCallback="${s.app.url}/conf" statusCallbackEvent="start end join leave">Team</Conference></Dial>`));
    s.app.on('/conf', { status: 204, body: '' });
    const call = await d.inbound(CALLER, DID);
    const confSid = () => d.h.store.conferences.openByName(s.accountId, 'Team')?.sid;
    await inRoom(d, confSid, 1);
    const sid = confSid()!;
    const added = await v1(d, 'POST', '/v1/conferences/Team/participants', { from: DID, to: PARTY });
    t.equal(added.status, 201, JSON.stringify(added.body));
    t.match(added.body, { conference_sid: sid, status: 'connecting' });
    await inRoom(d, confSid, 2);
    t.match((await v1(d, 'GET', `/v1/conferences/${sid}`)).body, { status: 'in-progress', participant_count: 2 });

    const ended = await v1(d, 'POST', `/v1/conferences/${sid}`, { status: 'completed' });
    t.match(ended.body, { status: 'completed', end_reason: 'conference-ended-via-api' });
    await call.ended;
    t.equal((await s.finalCall()).status, 'completed', 'the caller was hung up');
    t.equal((await final(d, added.body.call_sid)).status, 'completed', 'the added participant was hung up');
    await until('participants completed', 5_000, () => d.h.store.conferences.participants(sid).every((p) => p.status === 'completed'));
    await s.app.waitFor('/conf', 6);
    const events = s.app.requests.filter((r) => r.path === '/conf').map((r) => r.form.get('StatusCallbackEvent'));
    t.same([...events].sort(), ['conference-end', 'conference-start', 'participant-join', 'participant-join', 'participant-leave', 'participant-leave']);
    t.equal(events.indexOf('conference-start') < events.indexOf('conference-end'), true, 'start before end');
  });

  t.test('an end-on-exit caller leaving ends the conference and hangs up the others', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    d.party(PARTY, { behavior: 'answer' });
    s.app.on('/voice', xml('<Dial><Conference endConferenceOnExit="true">Host</Conference></Dial>'));
    const call = await d.inbound(CALLER, DID, { hangupAfterMs: 4_000 * d.speed });
    const confSid = () => d.h.store.conferences.openByName(s.accountId, 'Host')?.sid;
    await inRoom(d, confSid, 1);
    const sid = confSid()!;
    const added = await v1(d, 'POST', `/v1/conferences/${sid}/participants`, { from: DID, to: PARTY });
    t.equal(added.status, 201);
    await inRoom(d, confSid, 2);
    await call.ended;
    await until('the conference ended', 10_000, () => d.h.store.conferences.get(sid)?.status === 'completed');
    t.equal(d.h.store.conferences.get(sid)?.endReason, 'participant-with-end-conference-on-exit-left');
    t.equal((await final(d, added.body.call_sid)).status, 'completed', 'the other participant was hung up');
  });
}
