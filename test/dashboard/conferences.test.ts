// The dashboard's conferences: the list (open ones first), the page and its live part, mute/hold/remove/end
// (CSRF-protected, refused once over, hold playing the participant's hold_url as the API does), another
// account's conference not found, and conferences in a call's detail.
import t, { type Test } from 'tap';
import { startHarness } from '../helpers/harness.js';
import { until } from '../helpers/waits.js';
import { startMediaOrigin, toneWav } from '../helpers/media-origin.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import type { SandboxEngine } from '../../src/engine/sandbox/index.js';

const FROM = '+15550001000';
const A = '+15557770001';
const B = '+15557770002';

async function setup(t: Test) {
  const h = await startHarness(t, { env: { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const a = await accountWithUser(h, 'a@example.com');
  await h.store.numbers.add(FROM, a.id, DEFAULT_NUMBER_SETTINGS);
  const add = async (to: string, room = 'Standup') => {
    const res = await h.request('POST', `/v1/conferences/${room}/participants`, {
      key: a.key, body: { from: FROM, to }, headers: { 'x-forwarded-proto': 'https' },
    });
    const { conference_sid: confSid, call_sid: callSid } = res.body as { conference_sid: string; call_sid: string };
    await until('in the room', 5_000, async () => (await h.store.conferences.participant(confSid, callSid))?.status === 'in-progress');
    return { confSid, callSid };
  };
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  return { h, a, add, c };
}

t.test('list, page, live part, mute, hold, remove, end, refusals, call detail', async (t) => {
  const { h, add, c } = await setup(t);
  const x = await add(A);
  const y = await add(B);
  // A newer conference, already over: listed after the open one.
  const later = await add('+15557770009', 'Later');
  await h.app.callServices.conferences.end(later.confSid, 'conference-ended-via-api');
  const list = await c.request('GET', '/dashboard/conferences');
  t.match(list.text, new RegExp(`href="/dashboard/conferences/${x.confSid}">Standup</a></td>\\s*<td>in-progress</td><td>2</td>`));
  t.ok(list.text.indexOf('>Standup<') < list.text.indexOf('>Later<'), 'open conferences first, even when older');

  const page = `/dashboard/conferences/${x.confSid}`;
  const detail = await c.request('GET', page);
  t.match(detail.text, new RegExp(`data-refresh="/dashboard/conferences/${x.confSid}/live"`), 'the live part refreshes itself');
  t.match(detail.text, new RegExp(`id="p-${x.callSid}"><td data-label="Call"><a href="/dashboard/calls/${x.callSid}">`), 'each participant links to its call');
  t.match(detail.text, new RegExp(`id="p-${x.callSid}">.*?<td class="from" data-label="From">\\${FROM}</td><td class="to" data-label="To">\\${A}</td><td class="status" data-label="Status">in-progress</td>`, 's'), 'from and to of the call');

  const mute = `${page}/participants/${x.callSid}/mute`;
  const forged = await c.request('POST', mute, { _csrf: 'not-the-token' });
  t.equal(forged.status, 403, 'a participant button is CSRF-protected');
  t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.muted, false, 'nothing changed');
  const muted = await c.submit(page, mute);
  t.same([muted.status, muted.location], [303, `${page}?done=participant-updated`], 'POST, then back to the page');
  t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.muted, true, 'muted through the dashboard');
  t.match((await c.request('GET', muted.location!)).text, /<p class="notice" role="status">Participant updated\.<\/p>/, 'the page says so');
  const fragment = await c.request('GET', `${page}/live`);
  t.match(fragment.text, new RegExp(`id="p-${x.callSid}">.*?<td class="muted" data-label="Muted">yes</td>.*?>Unmute</button>`, 's'), 'the live part shows it, with Unmute');
  t.notMatch(fragment.text, /<html/, 'the live part is not a whole page');
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/unmute`)).status, 303);
  t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.muted, false, 'unmuted');
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/hold`)).status, 303);
  t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.hold, true, 'held');
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/unhold`)).status, 303);
  t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.hold, false, 'taken off hold');
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/deafen`)).status, 404, 'an unknown action');
  t.equal((await c.submit(page, `${page}/participants/CA${'0'.repeat(32)}/mute`)).status, 404, 'an unknown participant');

  const removed = await c.submit(page, `${page}/participants/${y.callSid}/remove`);
  t.same([removed.status, removed.location], [303, `${page}?done=participant-removed`]);
  await until('removed', 2_000, async () => (await h.store.conferences.participant(y.confSid, y.callSid))?.status === 'completed');
  const left = await c.submit(page, `${page}/participants/${y.callSid}/mute`);
  t.equal(left.status, 409);
  t.match(left.text, /<div id="conference-message"><p class="field-error" role="alert">This participant has left the conference\.<\/p>/, 'refused, with the reason');
  t.notMatch((await c.request('GET', `${page}/live`)).text, new RegExp(`id="p-${y.callSid}">((?!</tr>).)*<button`, 's'), 'no buttons for a participant that left');

  t.equal((await c.request('POST', `${page}/end`, { _csrf: 'not-the-token' })).status, 403, 'End is CSRF-protected');
  t.equal((await h.store.conferences.get(x.confSid))?.status, 'in-progress');
  t.equal((await c.submit(page, `${page}/end`)).status, 303);
  t.equal((await h.store.conferences.get(x.confSid))?.status, 'completed', 'ended');
  await until('everyone out', 2_000, async () => (await h.store.conferences.countInProgress(x.confSid)) === 0);
  const over = await c.request('GET', `${page}/live`);
  t.match(over.text, /<strong id="conference-status">completed<\/strong> \(conference-ended-via-api\)/);
  t.notMatch(over.text, /<button/, 'no buttons once over');
  const again = await c.submit(page, `${page}/participants/${x.callSid}/mute`);
  t.equal(again.status, 409);
  t.match(again.text, /This conference has ended\./);
  const endAgain = await c.submit(page, `${page}/end`);
  t.equal(endAgain.status, 409);
  t.match(endAgain.text, /This conference has already ended\./);

  const call = await c.request('GET', `/dashboard/calls/${y.callSid}`);
  t.match(call.text, new RegExp(`<h2>Conferences</h2>.*?<a href="/dashboard/conferences/${y.confSid}">Standup</a></td>\\s*<td>completed</td><td>[0-9-]+ [0-9:]+ UTC</td><td>[0-9-]+ [0-9:]+ UTC</td>`, 's'),
    'the call detail lists its conference with its participant status, added and left');
});

t.test("hold plays the participant's hold_url, and audio that cannot be used refuses the hold", async (t) => {
  const { h, add, c } = await setup(t);
  const origin = await startMediaOrigin(t);
  origin.on('/hold.wav', { body: toneWav(1, 440), headers: { 'content-type': 'audio/wav' } });
  const x = await add(A);
  await add(B);
  const page = `/dashboard/conferences/${x.confSid}`;
  await h.store.conferences.updateParticipant(x.confSid, x.callSid, { holdUrl: `${origin.origin}/hold.wav` });
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/hold`)).status, 303);
  const engine = h.engine as unknown as SandboxEngine;
  t.ok(engine.partyCalls(A)[0]!.transcript.some((e) => e.type === 'heard-play' && e.url === `${origin.origin}/hold.wav`), 'A hears its hold audio');
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/unhold`)).status, 303);

  await h.store.conferences.updateParticipant(x.confSid, x.callSid, { holdUrl: `${origin.origin}/missing.wav` });
  const refused = await c.submit(page, `${page}/participants/${x.callSid}/hold`);
  t.equal(refused.status, 422);
  t.match(refused.text, /role="alert">The participant&#39;s hold audio \(http:\/\/127\.0\.0\.1:\d+\/missing\.wav\) could not be used .*Not put on hold\./);
  t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.hold, false, 'not held');
});

t.test("another account's conference is not found", async (t) => {
  const { h, add } = await setup(t);
  const x = await add(A);
  await accountWithUser(h, 'b@example.com');
  const b = new DashboardClient(h.url);
  await b.signIn('b@example.com', PASSWORD);
  for (const path of [`/dashboard/conferences/${x.confSid}`, `/dashboard/conferences/${x.confSid}/live`]) {
    t.equal((await b.request('GET', path)).status, 404, path);
  }
  t.equal((await b.submit('/dashboard/conferences', `/dashboard/conferences/${x.confSid}/end`)).status, 404);
  t.equal((await b.submit('/dashboard/conferences', `/dashboard/conferences/${x.confSid}/participants/${x.callSid}/mute`)).status, 404);
  t.equal((await h.store.conferences.get(x.confSid))?.status, 'in-progress', 'untouched');
  t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.muted, false, 'untouched');
  t.notMatch((await b.request('GET', '/dashboard/conferences')).text, /Standup/, "not in the other account's list");
});

t.test('the live part without a session sends to sign-in (the page script then reloads)', async (t) => {
  const { h, add } = await setup(t);
  const x = await add(A);
  const anon = await new DashboardClient(h.url).request('GET', `/dashboard/conferences/${x.confSid}/live`);
  t.equal(anon.status, 303);
  t.match(anon.location, /^\/dashboard\/login\?next=/);
});
