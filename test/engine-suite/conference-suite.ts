// Conference flows on every engine: a caller joins by markup, a participant is added through the preview API,
// the conference ends through the API or when an end-on-exit participant leaves; states, legs and callbacks.
import type { Test } from 'tap';
import type { EngineDriver } from './driver.js';
import { final, scene, CALLER, DID } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { NumberService } from '../../src/numbers/service.js';

type MakeDriver = (t: Test) => Promise<EngineDriver>;
const PARTY = '+15550005555';
const A_NUMBER = '+15550002000';
const JOIN_MS = 20_000;

/** A preview API request, form-encoded as the spec sends it, over HTTPS through the trusted proxy. */
export function v1(d: EngineDriver, method: string, path: string, form?: Record<string, string>) {
  return d.h.request(method, path, {
    ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    headers: { 'x-forwarded-proto': 'https', ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
  });
}

const inRoom = (d: EngineDriver, confSid: () => Promise<string | undefined>, n: number) =>
  until(`${n} participants in the room`, JOIN_MS, async () => {
    const sid = await confSid();
    return sid !== undefined && (await d.h.store.conferences.countInProgress(sid)) === n;
  }, 20);

export function conferenceSuite(t: Test, make: MakeDriver): void {
  t.test('a caller by markup and a participant by the API meet; ending through the API hangs up both; callbacks in order', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'answer' });
    s.app.on('/voice', xml(`<Dial><Conference statusCallback="${s.app.url}/conf" statusCallbackEvent="start end join leave">Team</Conference></Dial>`));
    s.app.on('/conf', { status: 204, body: '' });
    const call = await d.inbound(CALLER, DID);
    const confSid = async () => (await d.h.store.conferences.openByName(s.accountId, 'Team'))?.sid;
    await inRoom(d, confSid, 1);
    const sid = (await confSid())!;
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
    await until('participants completed', 5_000, async () => (await d.h.store.conferences.participants(sid)).every((p) => p.status === 'completed'));
    // Delivered at least once: a callback whose answer came after its timeout (on a loaded machine, with the sandbox's
    // fast clock) is sent again with the same SequenceNumber, which a receiver drops, as this one does.
    const distinct = () => new Map(s.app.requests.filter((r) => r.path === '/conf').map((r) => [r.form.get('SequenceNumber'), r.form.get('StatusCallbackEvent')]));
    await until('six conference callbacks', 30_000, () => distinct().size >= 6);
    const bySequence = [...distinct()].sort(([a], [b]) => Number(a) - Number(b)).map(([, event]) => event);
    t.same([...bySequence].sort(), ['conference-end', 'conference-start', 'participant-join', 'participant-join', 'participant-leave', 'participant-leave']);
    t.equal(bySequence.indexOf('conference-start') < bySequence.indexOf('conference-end'), true, 'start before end');
  });

  t.test('an end-on-exit caller leaving ends the conference and hangs up the others', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'answer' });
    s.app.on('/voice', xml('<Dial><Conference endConferenceOnExit="true">Host</Conference></Dial>'));
    const call = await d.inbound(CALLER, DID, { hangupAfterMs: 4_000 * d.speed });
    const confSid = async () => (await d.h.store.conferences.openByName(s.accountId, 'Host'))?.sid;
    await inRoom(d, confSid, 1);
    const sid = (await confSid())!;
    const added = await v1(d, 'POST', `/v1/conferences/${sid}/participants`, { from: DID, to: PARTY });
    t.equal(added.status, 201);
    await inRoom(d, confSid, 2);
    await call.ended;
    await until('the conference ended', 10_000, async () => (await d.h.store.conferences.get(sid))?.status === 'completed');
    t.equal((await d.h.store.conferences.get(sid))?.endReason, 'participant-with-end-conference-on-exit-left');
    t.equal((await final(d, added.body.call_sid)).status, 'completed', 'the other participant was hung up');
  });

  t.test("account B cannot ring account A's registered seat: participant add, POST /api/calls and <Dial><Client> are refused", async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const a = await d.h.account();
    await new NumberService(d.h.store.numbers, { allowLocalTargets: true }).add(A_NUMBER, a.id, {});
    const created = await d.h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'udp' } });
    await d.h.app.trunks.settled();
    const seat = created.body as { endpoint_name: string; connection: { username: string; password: string } };
    await d.agentSeat({ endpointName: seat.endpoint_name, ...seat.connection }, { behavior: 'answer', hangupAfterMs: 1_000 * d.speed });
    const target = `client:${seat.endpoint_name}`;

    const added = await v1(d, 'POST', '/v1/conferences/Spy/participants', { from: DID, to: target });
    t.equal(added.status, 400, JSON.stringify(added.body));
    t.match(added.body.error, { param: 'to', message: `${target} is not a seat of this account.` });
    t.equal(await d.h.store.conferences.openByName(s.accountId, 'Spy'), undefined, 'no conference created');
    const api = await d.h.request('POST', '/api/calls', { body: { from: DID, to: target, markup: '<Response><Hangup/></Response>' } });
    t.equal(api.status, 422);
    t.same(api.body.errors.to, [`${target} is not a seat of this account.`]);

    s.app.on('/voice', xml(`<Dial timeout="5"><Client>${seat.endpoint_name}</Client></Dial><Hangup/>`));
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    const parent = await s.finalCall();
    const refused = (await d.h.store.calls.timeline(parent.sid)).find((e) => e.kind === 'dial-target-refused');
    t.match(refused?.detail, { to: target, reason: `${target} is not a seat of this account` }, "the markup's dial is refused before the engine");
    const rung = await d.h.store.sql.one<{ n: number }>("SELECT COUNT(*) AS n FROM calls WHERE to_addr = ? AND status <> 'failed'", [target]);
    t.equal(rung?.n, 0, "nothing of account B's reached the seat");

    // The seat was there to be rung: its own account reaches it.
    const own = await d.h.request('POST', '/api/calls', { key: a.key, body: { from: A_NUMBER, to: target, markup: '<Response><Pause length="1"/><Hangup/></Response>', timeout: 20 } });
    t.equal(own.status, 201, JSON.stringify(own.body));
    const ownCall = await final(d, own.body.sid);
    t.ok(ownCall.answeredAt, "account A's own call to its seat was answered");
    if (d.name === 'sandbox') t.equal(d.h.engine.partyCalls(target).length, 1, 'the seat was rung once, by its own account');
  });
}
