// /v1/conferences over real HTTPS on the sandbox engine: every endpoint, the state machines, the room's
// who-hears-whom after each change, and every bad input with its status and param.
import t from 'tap';
import { conferenceScene, FROM } from './support.js';
import { until } from '../helpers/waits.js';
import { startMediaOrigin, toneWav } from '../helpers/media-origin.js';
import type { SandboxEngine } from '../../src/engine/sandbox/index.js';

const A = '+15557770001';
const B = '+15557770002';
const C = '+15557770003';

t.test('two participants by name: one conference, in progress, hearing each other; mute, hold, coach, remove, end', async (t) => {
  const s = await conferenceScene(t);
  const origin = await startMediaOrigin(t);
  origin.on('/hold.wav', { body: toneWav(1, 440), headers: { 'content-type': 'audio/wav' } });
  const a = await s.join('Room A', A);
  const b = await s.join('Room A', B);
  t.equal(a.confSid, b.confSid, 'the name addresses one conference');
  const beeps = (n: string) => (s.h.engine as unknown as SandboxEngine).partyCalls(n)[0]!.transcript.filter((e) => e.type === 'heard-play' && e.url === 'beep').length;
  t.ok(beeps(A) >= 2, 'A heard the beep of its own and of B\'s entry');
  t.match((await s.call('GET', `/v1/conferences/${a.confSid}`)).body, { sid: a.confSid, friendly_name: 'Room A', status: 'in-progress', participant_count: 2, record: false, end_reason: null });
  t.ok(s.hears(a.confSid, a.line, b.line) && s.hears(a.confSid, b.line, a.line), 'A and B hear each other');

  const muted = await s.call('POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, { form: { muted: 'true' } });
  t.match(muted, { status: 200, body: { call_sid: a.callSid, muted: true, hold: false, status: 'in-progress' } });
  t.notOk(s.hears(a.confSid, b.line, a.line), 'muted A is not heard');
  t.ok(s.hears(a.confSid, a.line, b.line), 'muted A still hears B');
  await s.call('POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, { json: { muted: false } });
  t.ok(s.hears(a.confSid, b.line, a.line), 'unmuted (JSON body): heard again');

  const held = await s.call('POST', `/v1/conferences/${a.confSid}/participants/${b.callSid}`, { form: { hold: 'true', hold_url: `${origin.origin}/hold.wav` } });
  t.match(held.body, { hold: true, hold_url: `${origin.origin}/hold.wav` });
  t.notOk(s.hears(a.confSid, a.line, b.line) || s.hears(a.confSid, b.line, a.line), 'held B neither hears nor is heard');
  const engine = s.h.engine as unknown as SandboxEngine;
  t.ok(engine.partyCalls(B)[0]!.transcript.some((e) => e.type === 'heard-play' && e.url === `${origin.origin}/hold.wav`), 'B hears the hold audio');
  await s.call('POST', `/v1/conferences/${a.confSid}/participants/${b.callSid}`, { form: { hold: 'false' } });
  t.ok(s.hears(a.confSid, a.line, b.line), 'unheld B is heard again');

  const c = await s.join(a.confSid, C);
  const coach = await s.call('POST', `/v1/conferences/${a.confSid}/participants/${c.callSid}`, { form: { coaching: 'true', call_sid_to_coach: a.callSid } });
  t.match(coach.body, { coaching: true, call_sid_to_coach: a.callSid });
  t.ok(s.hears(a.confSid, a.line, c.line), 'the coached participant hears the coach');
  t.notOk(s.hears(a.confSid, b.line, c.line), 'nobody else does');
  t.ok(s.hears(a.confSid, c.line, b.line), 'the coach hears the room');

  origin.on('/announce.wav', { body: toneWav(1, 880), headers: { 'content-type': 'audio/wav' } });
  const announced = await s.call('POST', `/v1/conferences/${a.confSid}`, { form: { announce_url: `${origin.origin}/announce.wav` } });
  t.match(announced, { status: 200, body: { sid: a.confSid, status: 'in-progress' } });
  await until('everyone heard the announcement', 2_000, () => [A, B, C].every((n) => engine.partyCalls(n)[0]!.transcript.some((e) => e.type === 'heard-play' && e.url === `${origin.origin}/announce.wav`)));
  t.pass('the announcement reached every participant');

  t.equal((await s.call('DELETE', `/v1/conferences/${a.confSid}/participants/${c.callSid}`)).status, 204);
  await until('C left', 2_000, async () => (await s.statusOf(a.confSid, c.callSid)) === 'completed');
  t.equal((await s.call('GET', `/v1/conferences/${a.confSid}`)).body.participant_count, 2, 'the conference goes on');

  const ended = await s.call('POST', `/v1/conferences/${a.confSid}`, { form: { status: 'completed' } });
  t.match(ended.body, { status: 'completed', end_reason: 'conference-ended-via-api' });
  // Answered once every leave is stored: read at once, no participant is still in the conference.
  const parts = (await s.call('GET', `/v1/conferences/${a.confSid}/participants`)).body.participants;
  t.same(parts.map((p: { status: string }) => p.status), ['completed', 'completed', 'completed']);
  await until('every leg hung up', 2_000, () => [A, B].every((n) => engine.partyCalls(n)[0]!.ended));
  t.match(await s.call('POST', `/v1/conferences/${a.confSid}/participants`, { form: { from: FROM, to: A } }), { status: 409, body: { error: { code: 'conference_completed' } } });
  const again = await s.join('Room A', A);
  t.not(again.confSid, a.confSid, 'the name starts a new conference once the old one completed');
});

t.test('automatic transitions: waiting until a starter joins, end on exit, last participant leaves', async (t) => {
  const s = await conferenceScene(t);
  const waiter = await s.join('Lobby', A, { start_conference_on_enter: 'false' });
  t.equal((await s.call('GET', `/v1/conferences/${waiter.confSid}`)).body.status, 'init', 'a participant that does not start it waits');
  const host = await s.join('Lobby', B, { end_conference_on_exit: 'true' });
  // A join stores the participant in the room, then starts the conference and lets the waiter in: steps a read can
  // fall between on PostgreSQL (on SQLite they finish before a poll comes round), waited for like the ends below.
  const hearEachOther = () => s.hears(waiter.confSid, waiter.line, host.line) && s.hears(waiter.confSid, host.line, waiter.line);
  await until('the conference started', 2_000, async () => (await s.h.store.conferences.get(waiter.confSid))?.status === 'in-progress' && hearEachOther());
  t.equal((await s.call('GET', `/v1/conferences/${waiter.confSid}`)).body.status, 'in-progress', 'the starter started it');
  t.ok(hearEachOther(), 'the waiter is let in');
  await s.call('DELETE', `/v1/conferences/${waiter.confSid}/participants/${host.callSid}`);
  await until('conference ended', 2_000, async () => (await s.h.store.conferences.get(waiter.confSid))?.status === 'completed');
  t.equal((await s.call('GET', `/v1/conferences/${waiter.confSid}`)).body.end_reason, 'participant-with-end-conference-on-exit-left');

  const solo = await s.join('Solo', C);
  await s.call('DELETE', `/v1/conferences/${solo.confSid}/participants/${solo.callSid}`);
  await until('solo ended', 2_000, async () => (await s.h.store.conferences.get(solo.confSid))?.status === 'completed');
  t.equal((await s.call('GET', `/v1/conferences/${solo.confSid}`)).body.end_reason, 'last-participant-left');

  const engine = s.h.engine as unknown as SandboxEngine;
  engine.setParty('+15557770009', { behavior: 'busy' });
  const busy = await s.call('POST', '/v1/conferences/Busy/participants', { form: { from: FROM, to: '+15557770009' } });
  t.match(busy.body, { status: 'connecting' });
  // The participant's row is closed first, then the room is judged empty and ended: another two steps.
  await until('the busy participant completed', 5_000, async () => (await s.statusOf(busy.body.conference_sid, busy.body.call_sid)) === 'completed');
  await until('the empty conference ended', 2_000, async () => (await s.h.store.conferences.get(busy.body.conference_sid))?.status === 'completed');
  t.equal((await s.call('GET', `/v1/conferences/${busy.body.conference_sid}`)).body.status, 'completed', 'nobody left: completed');
});

t.test('list: newest first, filters, cursor pages', async (t) => {
  const s = await conferenceScene(t);
  const sids: string[] = [];
  for (const name of ['L1', 'L2', 'L3']) sids.push((await s.join(name, A)).confSid);
  await s.call('POST', `/v1/conferences/${sids[0]}`, { form: { status: 'completed' } });
  const all = await s.call('GET', '/v1/conferences');
  t.same(all.body.conferences.map((c: { sid: string }) => c.sid), [...sids].reverse());
  t.same(all.body.meta, { page_size: 50, next_cursor: null });
  t.same((await s.call('GET', '/v1/conferences?status=completed')).body.conferences.map((c: { sid: string }) => c.sid), [sids[0]]);
  t.same((await s.call('GET', '/v1/conferences?friendly_name=L2')).body.conferences.map((c: { sid: string }) => c.sid), [sids[1]]);
  const first = await s.call('GET', '/v1/conferences?page_size=2');
  t.equal(first.body.conferences.length, 2);
  const second = await s.call('GET', `/v1/conferences?page_size=2&cursor=${first.body.meta.next_cursor}`);
  t.same(second.body.conferences.map((c: { sid: string }) => c.sid), [sids[0]]);
  t.equal(second.body.meta.next_cursor, null);
});

t.test('bad input: every refusal has its status, code and param; nothing is dialled', async (t) => {
  const s = await conferenceScene(t);
  const other = await s.h.account();
  const a = await s.join('Room', A);
  const engine = s.h.engine as unknown as SandboxEngine;
  const dialled = engine.originated().length;
  const cases: Array<[string, string, string, Record<string, string> | undefined, number, string | undefined]> = [
    ['unknown sid', 'GET', '/v1/conferences/CF00000000000000000000000000000000', undefined, 404, undefined],
    ['unknown name', 'GET', '/v1/conferences/Nowhere', undefined, 404, undefined],
    ['unknown participant', 'POST', `/v1/conferences/${a.confSid}/participants/CA00000000000000000000000000000000`, { muted: 'true' }, 404, undefined],
    ['bad boolean', 'POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, { muted: 'yes' }, 400, 'muted'],
    ['bad hold boolean', 'POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, { hold: '1' }, 400, 'hold'],
    ['coach without target', 'POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, { coaching: 'true' }, 400, 'call_sid_to_coach'],
    ['coach self', 'POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, { coaching: 'true', call_sid_to_coach: a.callSid }, 400, 'call_sid_to_coach'],
    ['hold url refused', 'POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, { hold: 'true', hold_url: 'http://169.254.169.254/x.wav' }, 400, 'hold_url'],
    ['empty update', 'POST', `/v1/conferences/${a.confSid}/participants/${a.callSid}`, {}, 400, 'muted'],
    ['bad status', 'POST', `/v1/conferences/${a.confSid}`, { status: 'in-progress' }, 400, 'status'],
    ['announce refused', 'POST', `/v1/conferences/${a.confSid}`, { announce_url: 'http://10.0.0.1/a.wav' }, 400, 'announce_url'],
    ['from not owned', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: '+15550009999', to: B }, 400, 'from'],
    ['to malformed', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: FROM, to: 'bob' }, 400, 'to'],
    ['to hostile SIP', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: FROM, to: 'sip:x@169.254.169.254' }, 400, 'to'],
    ['bad beep', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: FROM, to: B, beep: 'loud' }, 400, 'beep'],
    ['bad add boolean', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: FROM, to: B, muted: 'on' }, 400, 'muted'],
    ['status_callback refused', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: FROM, to: B, status_callback: 'http://example.com/cb' }, 400, 'status_callback'],
    ['missing to', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: FROM }, 400, 'to'],
    ['unknown param', 'POST', `/v1/conferences/${a.confSid}/participants`, { from: FROM, to: B, colour: 'red' }, 400, 'colour'],
    ['bad page size', 'GET', '/v1/conferences?page_size=101', undefined, 400, 'page_size'],
    ['bad cursor', 'GET', '/v1/conferences?cursor=abc', undefined, 400, 'cursor'],
    ['bad status filter', 'GET', '/v1/conferences?status=open', undefined, 400, 'status'],
  ];
  for (const [what, method, path, form, status, param] of cases) {
    const res = await s.call(method, path, form ? { form } : {});
    t.equal(res.status, status, `${what}: ${status}`);
    if (param) t.equal(res.body?.error?.param, param, `${what}: param ${param} (${res.body?.error?.message})`);
    t.ok(res.body?.error?.request_id, `${what}: the error envelope`);
  }
  for (const path of [`/v1/conferences/${a.confSid}`, `/v1/conferences/${a.confSid}/participants`, '/v1/conferences/Room']) {
    t.equal((await s.call('GET', path, { key: other.key })).status, 404, `another account: ${path} is 404`);
  }
  t.equal((await s.call('POST', `/v1/conferences/${a.confSid}`, { form: { status: 'completed' }, key: other.key })).status, 404);
  t.equal(engine.originated().length, dialled, 'no refused request dialled anything');
  t.equal((await s.call('GET', `/v1/conferences/${a.confSid}`)).body.status, 'in-progress', 'the conference is untouched');
});

t.test('a participant add refused with 429 (calls per second) creates no conference; refusals come before anything is made', async (t) => {
  const s = await conferenceScene(t);
  await s.h.store.accounts.update(s.account.id, { cpsCap: 1 });
  const engine = s.h.engine as unknown as SandboxEngine;
  const first = await s.call('POST', '/v1/conferences/One/participants', { form: { from: FROM, to: A } });
  t.equal(first.status, 201);
  const refused = await s.call('POST', '/v1/conferences/Two/participants', { form: { from: FROM, to: B, status_callback: 'https://app.example.com/two' } });
  t.equal(refused.status, 429, JSON.stringify(refused.body));
  t.equal(await s.h.store.conferences.openByName(s.account.id, 'Two'), undefined, 'no conference named Two');
  t.same((await s.call('GET', '/v1/conferences?friendly_name=Two')).body.conferences, [], 'none listed');
  const again = await s.call('POST', `/v1/conferences/${first.body.conference_sid}/participants`, { form: { from: FROM, to: C, status_callback: 'https://app.example.com/one' } });
  t.equal(again.status, 429);
  t.equal((await s.h.store.conferences.get(first.body.conference_sid))!.statusCallback, null, 'a refused add changes nothing on an existing conference');
  t.equal(engine.originated().length, 1, 'only the admitted add dialled');
});
