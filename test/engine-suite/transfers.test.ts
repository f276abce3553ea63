// Blind transfers asked from inside a bridged <Dial> (issue 25 item 3, SIP REFER in) on the sandbox: the side that
// asks leaves, the number's refer_url is asked what the other side does next, and its document runs for that side.
// Without a refer_url, outside a bridge, or when the URL gives no document, the transfer is declined or fails and
// nothing else changes.
import t, { type Test } from 'tap';
import { sandboxDriver } from './sandbox-driver.js';
import { scene, makeTrunk, lastTrunkCall, CALLER, DID } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { until } from '../helpers/waits.js';
import { NumberService } from '../../src/numbers/service.js';
import type { SimulatedCall } from '../../src/engine/sandbox/index.js';

const PARTY = '+15558880007';
const TARGET = 'sip:sales@pbx.example.com?X-Ticket=42';

const heard = (call: SimulatedCall, text: string) => call.transcript.some((e) => e.type === 'heard-say' && e.text === text);
const isBridged = (call: SimulatedCall | undefined) => call?.transcript.some((e) => e.type === 'bridged') ?? false;

async function setup(t: Test, referUrl = true) {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  if (referUrl) {
    const numbers = new NumberService(d.h.store.numbers, { allowLocalTargets: true });
    await numbers.update(await numbers.find(DID), { refer_url: `${s.app.url}/transfer` });
  }
  d.h.engine.setParty(PARTY, { behavior: 'answer' });
  s.app.on('/voice', xml(`<Dial action="/after-dial"><Number>${PARTY}</Number></Dial><Say>Never heard.</Say>`));
  s.app.on('/after-dial', xml('<Say>After the dial.</Say>'));
  /** A caller bridged to the party: both simulated ends. */
  const bridgedCall = async () => {
    const caller = d.h.engine.simulateInbound({ from: CALLER, to: DID });
    await until('the caller and the party bridged', 10_000, () => isBridged(caller) && isBridged(d.h.engine.partyCalls(PARTY).at(-1)), 10);
    return { caller, party: d.h.engine.partyCalls(PARTY).at(-1)! };
  };
  const timeline = async (sid: string) => (await d.h.store.calls.timeline(sid)).map((e) => e.kind);
  return { d, s, bridgedCall, timeline };
}

t.test('the dialled party transfers the caller: 202, NOTIFY 100 then 200; the refer_url document replaces the Dial for the caller', async (t) => {
  const { d, s, bridgedCall, timeline } = await setup(t);
  s.app.on('/transfer', xml('<Say>You were transferred.</Say><Hangup/>'));
  const { caller, party } = await bridgedCall();
  const result = await party.transfer(TARGET, 'sip:agent@pbx.example.com');
  t.same(result, { referStatus: 202, reports: [100, 200] }, 'accepted, then reported done');
  await caller.ended;
  t.ok(heard(caller, 'You were transferred.'), 'the caller hears the transfer document');
  t.notOk(heard(caller, 'Never heard.') || heard(caller, 'After the dial.'), 'the Dial and its action are replaced');
  await party.ended;
  const call = await s.finalCall();
  const asked = s.app.requests.find((r) => r.path === '/transfer')!;
  t.match(asked.json, { call_sid: call.sid, refer_transfer_target: TARGET, referred_by: 'sip:agent@pbx.example.com', direction: 'inbound' });
  t.equal(asked.json.transferor_call_sid, (await d.h.store.calls.list(s.accountId, { parentSid: call.sid })).calls[0]?.sid, 'the party asked');
  t.equal(call.hangupCause, 'markup-hangup');
  const kinds = await timeline(call.sid);
  t.ok(['transfer-asked', 'transfer-done', 'transferred'].every((k) => kinds.includes(k)), kinds.join(', '));
});

t.test('the caller transfers the dialled party: the caller leaves, the party runs the refer_url document as its own call', async (t) => {
  const { d, s, bridgedCall, timeline } = await setup(t);
  s.app.on('/transfer', xml('<Say>Now talking to sales.</Say><Redirect>/next</Redirect>'));
  s.app.on('/next', xml('<Say>Relative URLs resolve against the transfer document.</Say>'));
  const { caller, party } = await bridgedCall();
  const result = await caller.transfer(TARGET);
  t.same(result, { referStatus: 202, reports: [100, 200] });
  await caller.ended;
  await party.ended;
  t.ok(heard(party, 'Now talking to sales.') && heard(party, 'Relative URLs resolve against the transfer document.'), 'the party heard the document');
  t.notOk(heard(caller, 'After the dial.'), 'the caller, gone, runs nothing more');
  const call = await s.finalCall();
  t.equal(call.hangupCause, 'refer-completed');
  const child = (await d.h.store.calls.list(s.accountId, { parentSid: call.sid })).calls[0]!;
  t.match(s.app.requests.find((r) => r.path === '/transfer')?.json, {
    call_sid: child.sid, parent_call_sid: call.sid, transferor_call_sid: call.sid, refer_transfer_target: TARGET, referred_by: null, direction: 'outbound-dial',
  });
  await until('the party\'s call is final', 10_000, async () => (await d.h.store.calls.get(child.sid))?.endedAt != null);
  t.match(await d.h.store.calls.get(child.sid), { status: 'completed', hangupCause: 'markup-finished' });
  t.ok((await timeline(call.sid)).includes('transfer-done'));
});

t.test('a refer_url that gives no document: NOTIFY 503, the calls stay bridged', async (t) => {
  const { s, bridgedCall, timeline } = await setup(t);
  s.app.on('/transfer', { status: 500, body: 'down' });
  const { caller, party } = await bridgedCall();
  t.same(await party.transfer(TARGET), { referStatus: 202, reports: [100, 503] });
  t.notOk(caller.isEnded || party.isEnded, 'both still on the line');
  caller.hangup();
  await party.ended;
  const kinds = await timeline((await s.finalCall()).sid);
  t.ok(kinds.includes('transfer-failed') && !kinds.includes('transfer-done'), kinds.join(', '));
});

t.test('declined (603) without a refer_url, and outside a bridge; the call goes on', async (t) => {
  const { s, bridgedCall } = await setup(t, false);
  const { caller, party } = await bridgedCall();
  t.same(await party.transfer(TARGET), { referStatus: 603, reports: [] }, 'no refer_url: the party\'s REFER is declined');
  t.same(await caller.transfer(TARGET), { referStatus: 603, reports: [] }, 'and the caller\'s');
  t.notOk(caller.isEnded || party.isEnded);
  caller.hangup();
  await party.ended;

  const withUrl = await setup(t);
  withUrl.s.app.on('/voice', xml('<Say>Hello.</Say><Pause length="30"/>'));
  const alone = withUrl.d.h.engine.simulateInbound({ from: CALLER, to: DID });
  await until('the caller hears the document', 10_000, () => heard(alone, 'Hello.'), 10);
  t.same(await alone.transfer(TARGET), { referStatus: 603, reports: [] }, 'with a refer_url but nobody bridged: nothing to hand over');
  t.notOk(alone.isEnded);
  alone.hangup();
  t.notOk(s.app.requests.some((r) => r.path === '/transfer') || withUrl.s.app.requests.some((r) => r.path === '/transfer'), 'no refer_url asked');
});

t.test('refer_url is checked when written, like every number URL', async (t) => {
  const d = await sandboxDriver(t);
  const { id } = await d.h.account();
  const numbers = new NumberService(d.h.store.numbers, { allowLocalTargets: false });
  await numbers.add(DID, id, {});
  for (const url of ['http://10.0.0.8/transfer', 'ftp://app.example.com/transfer', 'not a url', 'https://169.254.169.254/x']) {
    const refused = await numbers.update(await numbers.find(DID), { refer_url: url }).then(() => null, (err: { errors?: Record<string, string[]> }) => err.errors);
    t.match(refused, { refer_url: [/^The refer_url is refused/] }, `${url} refused`);
  }
  t.equal((await numbers.find(DID)).settings.refer_url, null, 'nothing stored');
  await numbers.update(await numbers.find(DID), { refer_url: 'https://app.example.com/transfer' });
  t.equal((await numbers.find(DID)).settings.refer_url, 'https://app.example.com/transfer');
});

t.test("a trunk's voice_refer_url, with its method: a seat's call out, transferred by the seat, runs it for the called party", async (t) => {
  const { d, s, timeline } = await setup(t, false);
  const trunk = await makeTrunk(d, { default_caller_id: DID });
  const updated = await d.h.request('PATCH', `/api/partner/trunks/${trunk.id}`, { body: { voice_refer_url: `${s.app.url}/transfer`, voice_refer_method: 'GET' } });
  t.match(updated, { status: 200, body: { voice_refer_url: `${s.app.url}/transfer`, voice_refer_method: 'GET' } });
  s.app.on('/transfer', xml('<Say>The seat handed you over.</Say>'));
  const seat = d.h.engine.simulateInbound({ from: '1001', to: PARTY, source: { kind: 'trunk', endpointName: trunk.endpointName } });
  await until('the seat and the party bridged', 10_000, () => isBridged(seat) && isBridged(d.h.engine.partyCalls(PARTY).at(-1)), 10);
  const party = d.h.engine.partyCalls(PARTY).at(-1)!;
  t.same(await seat.transfer(TARGET), { referStatus: 202, reports: [100, 200] });
  await party.ended;
  t.ok(heard(party, 'The seat handed you over.'));
  const asked = s.app.requests.find((r) => r.path === '/transfer')!;
  t.equal(asked.method, 'GET', 'voice_refer_method honoured');
  t.equal(asked.query.get('refer_transfer_target'), TARGET);
  const sid = await lastTrunkCall(d);
  t.equal(asked.query.get('transferor_call_sid'), sid);
  t.ok((await timeline(sid)).includes('transfer-done'));
});

t.test("a trunk call sent on to `to` runs no markup: the called party's REFER is declined, the seat's is not", async (t) => {
  const { d, s, timeline } = await setup(t, false);
  const trunk = await makeTrunk(d, { default_caller_id: DID, voice_refer_url: `${s.app.url}/transfer` });
  s.app.on('/transfer', xml('<Say>Handed over.</Say>'));
  const seat = d.h.engine.simulateInbound({ from: '1001', to: PARTY, source: { kind: 'trunk', endpointName: trunk.endpointName } });
  await until('the seat and the party bridged', 10_000, () => isBridged(seat) && isBridged(d.h.engine.partyCalls(PARTY).at(-1)), 10);
  const party = d.h.engine.partyCalls(PARTY).at(-1)!;
  t.same(await party.transfer(TARGET), { referStatus: 603, reports: [] });
  t.notOk(seat.isEnded || party.isEnded, 'still connected');
  const sid = await lastTrunkCall(d);
  t.match((await d.h.store.calls.timeline(sid)).find((e) => e.kind === 'transfer-declined')?.detail, { reason: /runs no markup/ });
  t.same(await seat.transfer(TARGET), { referStatus: 202, reports: [100, 200] }, 'the seat can still hand the party over');
  await party.ended;
  t.ok(heard(party, 'Handed over.'));
  t.ok((await timeline(sid)).includes('transfer-done'));
});
