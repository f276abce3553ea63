// Redirecting a live call through the API (POST /api/calls/{sid} with url or markup), on every engine: the verb
// under way stops (Say, Gather, an Enqueue wait, a Dial ringing or bridged), its action is not asked, the new
// document runs; what cannot be redirected is refused with a code and leaves the call as it was.
import type { Test } from 'tap';
import type { EngineDriver, PlacedCall } from './driver.js';
import { final, scene, CALLER, DID, type Scene } from './flows.js';
import { until } from '../helpers/waits.js';
import { xml } from '../helpers/webhook-app.js';
import { startMediaOrigin, toneWav } from '../helpers/media-origin.js';

type MakeDriver = (t: Test) => Promise<EngineDriver>;

const PARTY = '+15558880003';
const NEW_DOCUMENT = '<Response><Say>Redirected.</Say><Hangup/></Response>';
/** Redirects in the first moments of a bridge: the defect they guard against showed in about one call in four. */
const EARLY_REDIRECTS = 8;

const update = (d: EngineDriver, sid: string, body: Record<string, unknown>) => d.h.request('POST', `/api/calls/${sid}`, { body });

/** The sid of the scene's newest top-level call once it is answered. */
export async function liveSid(d: Pick<EngineDriver, 'h'>, s: Scene): Promise<string> {
  let sid = '';
  await until('the call is answered', 20_000, async () => {
    const row = await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE account_id = ? AND status = 'in-progress' AND parent_sid IS NULL ORDER BY created_at DESC LIMIT 1", [s.accountId]);
    sid = row?.sid ?? '';
    return sid !== '';
  }, 20);
  return sid;
}

/** The sid of a dialled leg of `parent` once it is in `status`. */
async function childWhen(d: EngineDriver, parent: string, status: 'ringing' | 'in-progress'): Promise<string> {
  let child = '';
  await until(`the dialled party ${status}`, 20_000, async () => {
    child = (await d.h.store.sql.one<{ sid: string }>('SELECT sid FROM calls WHERE parent_sid = ? AND status = ?', [parent, status]))?.sid ?? '';
    return child !== '';
  }, 20);
  return child;
}

const timelineHas = async (d: EngineDriver, sid: string, kind: string) => (await d.h.store.calls.timeline(sid)).some((e) => e.kind === kind);

/** The redirect is answered 200 with the call; the caller's call then runs the new document to its Hangup. */
async function redirected(t: Test, d: EngineDriver, call: PlacedCall, sid: string, body: Record<string, unknown>): Promise<void> {
  const res = await update(d, sid, body);
  t.equal(res.status, 200, `redirect answered ${res.status} ${res.text.slice(0, 200)}`);
  // With the call as it is when the answer is written: in progress, or, on the sandbox's fast clock on a loaded
  // machine, already ended by the new document's Hangup (it ran in the meantime).
  t.match(res.body, { sid }, 'with the call');
  t.ok(res.body.status === 'in-progress' || (d.name === 'sandbox' && res.body.status === 'completed'), `still in progress (${res.body.status})`);
  await call.ended;
  const ended = await final(d, sid);
  t.equal(ended.status, 'completed');
  t.equal(ended.hangupCause, 'markup-hangup', 'ended by the new document\'s Hangup');
  t.ok(await timelineHas(d, sid, 'redirected-by-request'), 'the timeline says a request redirected it');
  const heard = call.heard();
  if (heard) t.equal(heard.at(-1), 'Redirected.', 'the caller heard the new document');
}

export function redirectSuite(t: Test, make: MakeDriver): void {
  t.test('url during a long Say: the new document is asked and runs; the rest of the old one does not', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Say loop="0">Please hold the line.</Say><Say>Never heard.</Say>'));
    s.app.on('/next', { body: NEW_DOCUMENT });
    const call = await d.inbound(CALLER, DID);
    const sid = await liveSid(d, s);
    await redirected(t, d, call, sid, { url: `${s.app.url}/next`, method: 'GET' });
    const asked = s.app.requests.filter((r) => r.path === '/next');
    t.equal(asked.length, 1, 'the URL was asked once');
    t.equal(asked[0]?.method, 'GET', 'with the method given');
    t.notOk(call.heard()?.includes('Never heard.'), 'the old document did not go on');
  });

  t.test('markup during a Gather: the Gather ends without asking its action', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Gather action="/digits" timeout="600"><Say loop="0">Press a key.</Say></Gather><Say>Never heard.</Say>'));
    const call = await d.inbound(CALLER, DID);
    const sid = await liveSid(d, s);
    await redirected(t, d, call, sid, { markup: NEW_DOCUMENT });
    t.equal(s.app.requests.filter((r) => r.path === '/digits').length, 0, 'the Gather action was not asked');
  });

  t.test('markup during an Enqueue wait: the caller leaves the line, not counted as abandoned; the action is not asked', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    // Music on hold: a caller on the real engines counts as answered once it hears something.
    const origin = await startMediaOrigin(t);
    origin.on('/hold.wav', { body: toneWav(2, 440), headers: { 'content-type': 'audio/wav' } });
    s.app.on('/voice', xml(`<Enqueue waitUrl="${origin.origin}/hold.wav" action="/after">support</Enqueue>`));
    const call = await d.inbound(CALLER, DID);
    const sid = await liveSid(d, s);
    await until('the caller is queued', 20_000, () => timelineHas(d, sid, 'queued'), 20);
    await redirected(t, d, call, sid, { markup: NEW_DOCUMENT });
    const timeline = await d.h.store.calls.timeline(sid);
    t.match(timeline.find((e) => e.kind === 'queue-result'), { detail: { result: 'redirected' } }, 'the wait ended redirected');
    t.ok(timeline.some((e) => e.kind === 'queue-redirected'), 'out of the line');
    t.notOk(timeline.some((e) => e.kind === 'abandoned'), 'not an abandoned call');
    t.equal(s.app.requests.filter((r) => r.path === '/after').length, 0, 'the Enqueue action was not asked');
    t.equal(await d.h.app.callServices.acd.router.position(sid), null, 'no longer in the queue');
  });

  t.test('markup during a bridged Dial: the dialled party is hung up, the caller runs the new document', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'answer', hangupAfterMs: 600_000 });
    s.app.on('/voice', xml(`<Dial action="/dialed" timeout="30"><Number>${PARTY}</Number></Dial><Say>Never heard.</Say>`));
    const call = await d.inbound(CALLER, DID);
    const sid = await liveSid(d, s);
    const child = await childWhen(d, sid, 'in-progress');
    // A call in the middle of its bridge (its first moments: the next case).
    await new Promise((r) => setTimeout(r, 1_000 / d.speed));
    const refused = await update(d, child, { markup: NEW_DOCUMENT });
    t.equal(refused.status, 409, 'the dialled leg runs no markup of its own');
    t.equal(refused.body.code, 'call_not_running_markup');
    await redirected(t, d, call, sid, { markup: NEW_DOCUMENT });
    const dialled = await final(d, child);
    t.equal(dialled.status, 'completed', 'the dialled call ended');
    t.equal(s.app.requests.filter((r) => r.path === '/dialed').length, 0, 'the Dial action was not asked');
  });

  t.test(`markup as soon as a Dial's party answers, ${EARLY_REDIRECTS} calls: the caller runs the new document every time`, async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml(`<Dial action="/dialed" timeout="30"><Number>${PARTY}</Number></Dial><Say>Never heard.</Say>`));
    // The bridge is still being set up in FreeSWITCH when the party is hung up: the caller's channel was ended with
    // it (ORIGINATOR_CANCEL) in about one call in four, until the channels were told to go on (freeswitch/dialplan).
    for (let i = 0; i < EARLY_REDIRECTS; i++) {
      // A party for each call: on the real engines a scripted party answers one call.
      await d.party(PARTY, { behavior: 'answer', hangupAfterMs: 600_000 });
      const call = await d.inbound(CALLER, DID);
      const sid = await liveSid(d, s);
      await childWhen(d, sid, 'in-progress');
      await redirected(t, d, call, sid, { markup: NEW_DOCUMENT });
    }
    t.equal(s.app.requests.filter((r) => r.path === '/dialed').length, 0, 'no Dial action was asked');
  });

  t.test('markup while a Dial rings: the attempt is withdrawn', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'no-answer' });
    s.app.on('/voice', xml(`<Dial action="/dialed" timeout="600"><Number>${PARTY}</Number></Dial>`));
    const call = await d.inbound(CALLER, DID);
    const sid = await liveSid(d, s);
    const child = await childWhen(d, sid, 'ringing');
    await redirected(t, d, call, sid, { markup: NEW_DOCUMENT });
    t.equal((await final(d, child)).status, 'canceled', 'the ringing attempt was withdrawn');
    t.equal(s.app.requests.filter((r) => r.path === '/dialed').length, 0, 'the Dial action was not asked');
  });

  t.test('refused redirects leave the call as it was: bad bodies 422, a URL that fails 422, an ended call 409', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', xml('<Say loop="0">Please hold the line.</Say>'));
    s.app.on('/broken', { status: 500, body: 'down' });
    const call = await d.inbound(CALLER, DID);
    const sid = await liveSid(d, s);
    for (const body of [
      { url: 'ftp://example.com/x' }, { markup: '<Response><Dance/></Response>' }, { url: `${s.app.url}/next`, markup: NEW_DOCUMENT },
      { method: 'GET' }, { markup: NEW_DOCUMENT, method: 'GET' }, { markup: '<Response><Play>http://169.254.169.254/x.wav</Play></Response>' },
    ]) {
      const res = await update(d, sid, body);
      t.equal(res.status, 422, `${JSON.stringify(body)}: ${res.text.slice(0, 160)}`);
      t.ok(res.body.errors, 'with the fields at fault');
    }
    const failed = await update(d, sid, { url: `${s.app.url}/broken` });
    t.equal(failed.status, 422, 'a URL that gives no document');
    t.match(failed.body.errors?.url?.[0], /gave no document/);
    t.equal((await d.h.store.calls.get(sid))?.status, 'in-progress', 'the call goes on');
    t.notOk(await timelineHas(d, sid, 'redirected-by-request'), 'nothing was redirected');
    call.hangup();
    await call.ended;
    await final(d, sid);
    const ended = await update(d, sid, { markup: NEW_DOCUMENT });
    t.equal(ended.status, 409);
    t.equal(ended.body.code, 'call_ended');
    const other = await d.h.account();
    const theirs = 'CA0000000000000000000000000000cafe';
    await d.h.store.calls.create({ sid: theirs, accountId: other.id, direction: 'inbound', from: CALLER, to: DID, status: 'in-progress' });
    t.equal((await update(d, theirs, { markup: NEW_DOCUMENT })).status, 404, 'another account\'s call');
  });
}
