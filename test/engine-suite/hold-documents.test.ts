// Wait and hold documents on the sandbox (issue 25 item 7): a wait URL, hold URL or announcement URL that answers
// markup is a document of <Say>, <Play>, <Pause>, <Redirect>, played to the member alone and asked for again each
// time it ends; audio still loops as before. The real engines' RTP proof is in test/engine/drachtio/conference-markup.
import t from 'tap';
import { sandboxDriver } from './sandbox-driver.js';
import { scene, CALLER, DID } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { v1 } from './conference-suite.js';
import type { SimulatedCall } from '../../src/engine/sandbox/index.js';

const said = (call: SimulatedCall | undefined, text: string) =>
  (call?.transcript ?? []).filter((e) => e.type === 'heard-say' && e.text === text).length;

/** The sid of the account's newest call. */
const newestCall = async (d: Awaited<ReturnType<typeof sandboxDriver>>, accountId: number) =>
  (await d.h.store.sql.one<{ sid: string }>('SELECT sid FROM calls WHERE account_id = ? ORDER BY created_at DESC, sid DESC LIMIT 1', [accountId]))!.sid;


t.test('<Enqueue waitUrl> with a document: the caller hears it, asked for again each time it ends with the queue and the wait so far', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/wait', xml('<Say>You are in line.</Say><Pause length="2"/>'));
  s.app.on('/voice', xml('<Enqueue waitUrl="/wait" maxWait="60" action="/after">support</Enqueue>'));
  s.app.on('/after', xml('<Say>Goodbye.</Say>'));
  const call = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await call.ended;
  t.ok(said(call, 'You are in line.') >= 2, `the caller heard the wait document ${said(call, 'You are in line.')} times`);
  const asked = s.app.requests.filter((r) => r.path === '/wait' && r.method === 'POST');
  t.ok(asked.length >= 2, `the document was asked for ${asked.length} times`);
  t.match(asked[0]?.json, { queue_sid: /^QU/, queue_time: Number, call_sid: /^CA/, from: CALLER, to: DID });
  t.ok((asked.at(-1)?.json.queue_time as number) > (asked[0]?.json.queue_time as number), 'later requests carry the wait so far');
  t.match(s.app.requests.find((r) => r.path === '/after')?.json, { queue_result: 'timeout' }, 'the wait ended as before');
  t.ok(said(call, 'Goodbye.') === 1, 'and the document went on after the Enqueue');
});

t.test('<Conference waitUrl> with a document until the conference starts; a document that is not a hold document leaves the caller in silence, said in the timeline', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/wait', xml('<Say>The host has not joined yet.</Say><Redirect>/wait-2</Redirect>'));
  s.app.on('/wait-2', xml('<Say>Still waiting.</Say>'));
  s.app.on('/voice', xml('<Dial><Conference waitUrl="/wait" startConferenceOnEnter="false">Room</Conference></Dial>'));
  // The caller hangs up once it has heard enough: simulated time runs 50 times faster than the real requests.
  const call = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await until('the redirect target heard twice', 10_000, () => said(call, 'Still waiting.') >= 2, 10);
  call.hangup();
  await call.ended;
  t.ok(said(call, 'The host has not joined yet.') >= 1, 'the first document was heard');
  t.ok(said(call, 'Still waiting.') >= 2, `its redirect target was heard and asked for again (${said(call, 'Still waiting.')} times)`);
  t.match(s.app.requests.find((r) => r.path === '/wait-2' && r.method === 'POST')?.json, { conference_sid: /^CF/ });

  // Another room: the first one is ending as its last member left.
  s.app.on('/voice', xml('<Dial><Conference waitUrl="/wait" startConferenceOnEnter="false">Room 2</Conference></Dial>'));
  s.app.on('/wait', xml('<Dial>+15550001111</Dial>'));
  const second = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  const secondSid = () => newestCall(d, s.accountId);
  await until('the hold audio skipped', 10_000, async () => (await d.h.store.calls.timeline(await secondSid())).some((e) => e.kind === 'hold-audio-skipped'), 10);
  second.hangup();
  await second.ended;
  t.equal(second.transcript.filter((e) => e.type === 'heard-say').length, 0, 'nothing was played');
  const timeline = await d.h.store.calls.timeline((await s.finalCall()).sid);
  t.match(timeline.find((e) => e.kind === 'hold-audio-skipped'), { detail: { code: 'not_a_hold_document' } }, 'the timeline says why');
});

t.test('a participant held with a hold_url document hears it instead of the room; an announce_url document reaches every participant', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/hold', xml('<Say>Please hold.</Say><Pause length="1"/>'));
  s.app.on('/announce', xml('<Say>This call is recorded.</Say>'));
  s.app.on('/voice', xml('<Dial><Conference>Team</Conference></Dial>'));
  const first = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  const second = d.h.engine.simulateInbound({ from: '+15557770002', to: DID });
  const conf = async () => (await d.h.store.conferences.openByName(s.accountId, 'Team'))!;
  await until('both in the room', 10_000, async () => (await d.h.store.conferences.openByName(s.accountId, 'Team')) !== undefined
    && (await d.h.store.conferences.countInProgress((await conf()).sid)) === 2, 20);
  const { sid } = await conf();
  const [held] = await d.h.store.conferences.participants(sid);
  const holding = await v1(d, 'POST', `/v1/conferences/${sid}/participants/${held!.callSid}`, { hold: 'true', hold_url: `${s.app.url}/hold` });
  t.equal(holding.status, 200, JSON.stringify(holding.body));
  await until('the held participant heard the document twice', 10_000, () => said(first, 'Please hold.') + said(second, 'Please hold.') >= 2, 20);
  t.equal(Math.min(said(first, 'Please hold.'), said(second, 'Please hold.')), 0, 'only the held participant heard it');

  const announced = await v1(d, 'POST', `/v1/conferences/${sid}`, { announce_url: `${s.app.url}/announce` });
  t.equal(announced.status, 200, JSON.stringify(announced.body));
  await until('both heard the announcement', 10_000, () => said(first, 'This call is recorded.') === 1 && said(second, 'This call is recorded.') === 1, 20);

  const refused = await v1(d, 'POST', `/v1/conferences/${sid}`, { announce_url: `${s.app.url}/voice` });
  t.equal(refused.status, 400, 'a document with other verbs is refused');
  t.match(refused.body, { error: { param: 'announce_url', message: /not_a_hold_document.*not <dial>/ } });
  await v1(d, 'POST', `/v1/conferences/${sid}`, { status: 'completed' });
  await Promise.all([first.ended, second.ended]);
});

t.test('<Leave> in a wait document takes the caller out of the line: the Enqueue action hears queue_result leave; in a call document it is a no-op; in a hold document it is refused', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  s.app.on('/wait', xml('<Say>Nobody is free.</Say><Leave/><Say>Never heard.</Say>'));
  s.app.on('/voice', xml('<Leave/><Enqueue waitUrl="/wait" action="/after">support</Enqueue>'));
  s.app.on('/after', xml('<Say>Please call again.</Say>'));
  const call = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await call.ended;
  t.equal(said(call, 'Nobody is free.'), 1, 'the wait document played up to its <Leave>');
  t.equal(said(call, 'Never heard.'), 0, 'and no further');
  t.match(s.app.requests.find((r) => r.path === '/after')?.json, { queue_result: 'leave', queue_sid: /^QU/ });
  t.equal(said(call, 'Please call again.'), 1, 'the call went on with the action');
  const parent = await s.finalCall();
  const timeline = await d.h.store.calls.timeline(parent.sid);
  t.ok(timeline.some((e) => e.kind === 'queue-left'), 'the timeline says the caller left the line');
  t.ok(timeline.some((e) => e.kind === 'leave-outside-queue'), 'the <Leave> before the Enqueue did nothing but say so');
  t.notOk(timeline.some((e) => e.kind === 'abandoned'), 'leaving is not abandoning');
  t.equal(await d.h.app.callServices.acd.router.position(parent.sid), null, 'no longer in the queue');

  s.app.on('/voice', xml('<Dial><Conference waitUrl="/wait" startConferenceOnEnter="false">Room</Conference></Dial>'));
  const second = d.h.engine.simulateInbound({ from: CALLER, to: DID });
  const secondSid = () => newestCall(d, s.accountId);
  await until('the wait document refused', 10_000, async () => (await d.h.store.calls.timeline(await secondSid())).some((e) => e.kind === 'hold-audio-skipped'), 10);
  second.hangup();
  await second.ended;
  t.match((await d.h.store.calls.timeline(await secondSid())).find((e) => e.kind === 'hold-audio-skipped'), { detail: { code: 'not_a_hold_document', reason: /not <leave>/ } }, 'a conference has no line to leave');
});
