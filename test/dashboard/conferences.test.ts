// The dashboard's conferences: list, live participant table, mute/hold/remove/end (CSRF-protected, refused once
// over), another account's conference not found, and conferences in a call's detail.
import t, { type Test } from 'tap';
import { startHarness } from '../helpers/harness.js';
import { until } from '../helpers/waits.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';

const FROM = '+15550001000';

async function setup(t: Test) {
  const h = await startHarness(t, { env: { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const a = await accountWithUser(h, 'a@example.com');
  h.store.numbers.add(FROM, a.id, DEFAULT_NUMBER_SETTINGS);
  const add = async (to: string) => {
    const res = await h.request('POST', '/v1/conferences/Standup/participants', {
      key: a.key, body: { from: FROM, to }, headers: { 'x-forwarded-proto': 'https' },
    });
    const { conference_sid: confSid, call_sid: callSid } = res.body as { conference_sid: string; call_sid: string };
    await until('in the room', 5_000, () => h.store.conferences.participant(confSid, callSid)?.status === 'in-progress');
    return { confSid, callSid };
  };
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  return { h, a, add, c };
}

t.test('list, detail, live table, mute, hold, remove, end', async (t) => {
  const { h, add, c } = await setup(t);
  const x = await add('+15557770001');
  const y = await add('+15557770002');
  const list = await c.request('GET', '/dashboard/conferences');
  t.match(list.text, new RegExp(`href="/dashboard/conferences/${x.confSid}">Standup</a></td>\\s*<td>in-progress</td><td>2</td>`));
  const page = `/dashboard/conferences/${x.confSid}`;
  const detail = await c.request('GET', page);
  t.match(detail.text, /data-refresh="\/dashboard\/conferences\/CF[0-9a-f]{32}\/participants"/, 'the table refreshes itself');
  t.match(detail.text, new RegExp(`id="p-${x.callSid}"`));

  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/mute`)).status, 303);
  t.equal(h.store.conferences.participant(x.confSid, x.callSid)?.muted, true, 'muted through the dashboard');
  const fragment = await c.request('GET', `${page}/participants`);
  t.match(fragment.text, new RegExp(`id="p-${x.callSid}">.*?<td class="muted">yes</td>`, 's'), 'the live fragment shows it');
  t.notMatch(fragment.text, /<html/, 'the fragment is not a whole page');
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/hold`)).status, 303);
  t.equal(h.store.conferences.participant(x.confSid, x.callSid)?.hold, true);
  t.equal((await c.submit(page, `${page}/participants/${x.callSid}/unhold`)).status, 303);
  t.equal((await c.submit(page, `${page}/participants/${y.callSid}/remove`)).status, 303);
  await until('removed', 2_000, () => h.store.conferences.participant(y.confSid, y.callSid)?.status === 'completed');
  const forged = await c.request('POST', `${page}/end`, { _csrf: 'not-the-token' });
  t.equal(forged.status, 403, 'CSRF-protected');
  t.equal(h.store.conferences.get(x.confSid)?.status, 'in-progress');
  t.equal((await c.submit(page, `${page}/end`)).status, 303);
  t.equal(h.store.conferences.get(x.confSid)?.status, 'completed');
  const again = await c.submit(page, `${page}/participants/${x.callSid}/mute`);
  t.equal(again.status, 409);
  t.match(again.text, /This conference has ended\./);

  const call = await c.request('GET', `/dashboard/calls/${x.callSid}`);
  t.match(call.text, new RegExp(`<h2>Conferences</h2><ul><li><a href="/dashboard/conferences/${x.confSid}">`), 'the call detail lists its conference');
});

t.test("another account's conference is not found", async (t) => {
  const { h, add } = await setup(t);
  const x = await add('+15557770001');
  await accountWithUser(h, 'b@example.com');
  const b = new DashboardClient(h.url);
  await b.signIn('b@example.com', PASSWORD);
  for (const path of [`/dashboard/conferences/${x.confSid}`, `/dashboard/conferences/${x.confSid}/participants`]) {
    t.equal((await b.request('GET', path)).status, 404, path);
  }
  t.equal((await b.submit('/dashboard/conferences', `/dashboard/conferences/${x.confSid}/end`)).status, 404);
  t.equal(h.store.conferences.get(x.confSid)?.status, 'in-progress', 'untouched');
});
