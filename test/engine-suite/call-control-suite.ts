// Ending a live call through the API (POST /api/calls/{sid}), on every engine: an answered call is hung up in the
// middle of its markup, a ringing outbound call is withdrawn, and what cannot be done is refused with a code.
import type { Test } from 'tap';
import type { EngineDriver } from './driver.js';
import { final, scene, CALLER, DID } from './flows.js';
import { until } from '../helpers/waits.js';
import { xml } from '../helpers/webhook-app.js';

type MakeDriver = (t: Test) => Promise<EngineDriver>;

const PARTY = '+15558880002';
/** Long enough to still be running when the test acts, on any engine (the sandbox runs 50 times faster). */
const LONG_PAUSE = xml('<Say>Please hold.</Say><Pause length="600"/><Say>Still here.</Say>');

const endCall = (d: EngineDriver, sid: string, body: Record<string, unknown>) => d.h.request('POST', `/api/calls/${sid}`, { body });

async function answeredSid(d: EngineDriver): Promise<string> {
  let sid = '';
  await until('the call is answered', 20_000, async () => {
    const row = await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE status = 'in-progress' AND parent_sid IS NULL ORDER BY created_at DESC LIMIT 1");
    sid = row?.sid ?? '';
    return sid !== '';
  }, 20);
  return sid;
}

export function callControlSuite(t: Test, make: MakeDriver): void {
  t.test('status "completed" hangs up an answered call in the middle of its markup; the caller is hung up at once', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    s.app.on('/voice', LONG_PAUSE);
    const call = await d.inbound(CALLER, DID);
    const sid = await answeredSid(d);
    const asked = Date.now();
    const res = await endCall(d, sid, { status: 'completed' });
    t.equal(res.status, 200, 'answers with the call');
    t.match(res.body, { sid, status: 'completed' });
    const byeMs = (await call.endedAt()) - asked;
    t.ok(byeMs < 500, `the caller's leg ended ${byeMs} ms after the request (at most 500)`);
    const ended = await final(d, sid);
    t.equal(ended.hangupCause, 'api-hangup');
    const heard = call.heard();
    if (heard) t.same(heard, ['Please hold.'], 'the rest of the document does not run');
    t.ok((await d.h.store.calls.timeline(sid)).some((e) => e.kind === 'ended-by-request'), 'the timeline says who ended it');

    const again = await endCall(d, sid, { status: 'completed' });
    t.equal(again.status, 409);
    t.equal(again.body.code, 'call_ended', 'an ended call cannot be changed');
  });

  t.test('status "canceled" withdraws an outbound call while it rings; refused once the call is answered', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'no-answer' });
    const placed = await d.h.request('POST', '/api/calls', { body: { from: DID, to: PARTY, url: `${s.app.url}/never`, timeout: 600 } });
    t.equal(placed.status, 201);
    const sid = placed.body.sid as string;
    await until(async () => `the call rings (it is ${JSON.stringify(await d.h.store.calls.get(sid))})`, 20_000, async () => (await d.h.store.calls.get(sid))?.status === 'ringing', 20);
    const res = await endCall(d, sid, { status: 'canceled' });
    t.equal(res.status, 200);
    t.match(res.body, { sid, status: 'canceled' }, 'the call ends canceled, never answered');
    t.equal(s.app.requests.filter((r) => r.path === '/never').length, 0, 'its markup never ran');

    s.app.on('/voice', LONG_PAUSE);
    const call = await d.inbound(CALLER, DID);
    const answered = await answeredSid(d);
    const refused = await endCall(d, answered, { status: 'canceled' });
    t.equal(refused.status, 409);
    t.equal(refused.body.code, 'call_in_progress');
    t.equal((await d.h.store.calls.get(answered))?.status, 'in-progress', 'the answered call goes on');
    call.hangup();
    await call.ended;
  });

  t.test('bad bodies are 422, other accounts\' calls 404, a call this process does not run 409', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const other = await d.h.account();
    const sid = 'CA0000000000000000000000000000dead';
    await d.h.store.calls.create({ sid, accountId: other.id, direction: 'inbound', from: CALLER, to: DID, status: 'in-progress' });
    for (const body of [{}, { status: 'busy' }, { status: 'completed', url: 'https://example.com/x' }]) {
      const res = await endCall(d, sid, body);
      t.equal(res.status, 422, JSON.stringify(body));
      t.ok(res.body.errors, 'with the fields at fault');
    }
    t.equal((await endCall(d, sid, { status: 'completed' })).status, 404, 'another account\'s call');
    t.equal((await endCall(d, 'CA00000000000000000000000000000000', { status: 'completed' })).status, 404, 'no such call');
    const own = 'CA0000000000000000000000000000beef';
    await d.h.store.calls.create({ sid: own, accountId: s.accountId, direction: 'inbound', from: CALLER, to: DID, status: 'in-progress' });
    const res = await endCall(d, own, { status: 'completed' });
    t.equal(res.status, 409);
    t.equal(res.body.code, 'call_not_carried_here');
  });
}
