// Hang up and Redirect on a live call's page (the API's POST /api/calls/{sid} rules): CSRF-protected, shown only while the call
// is live, the call ended with its cause, refused with the reason once over, another account's call not found.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { until } from '../helpers/waits.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';

const FROM = '+15550001000';
const TO = '+15557770001';

t.test('Hang up ends a live call; refused once it is over; another account cannot', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const a = await accountWithUser(h, 'a@example.com');
  await h.store.numbers.add(FROM, a.id, DEFAULT_NUMBER_SETTINGS);
  // A live call: a conference participant added through the API stays on until it is hung up.
  const added = await h.request('POST', '/v1/conferences/Standup/participants', { key: a.key, body: { from: FROM, to: TO }, headers: { 'x-forwarded-proto': 'https' } });
  const { conference_sid: confSid, call_sid: sid } = added.body as { conference_sid: string; call_sid: string };
  await until('in the room', 5_000, async () => (await h.store.conferences.participant(confSid, sid))?.status === 'in-progress');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  const page = `/dashboard/calls/${sid}`;
  t.match((await c.request('GET', page)).text, /<button type="submit" class="danger">Hang up<\/button>/, 'a live call has Hang up');

  await accountWithUser(h, 'b@example.com');
  const b = new DashboardClient(h.url);
  await b.signIn('b@example.com', PASSWORD);
  t.equal((await b.submit('/dashboard/calls', `${page}/hangup`)).status, 404, "another account's call is not found");
  t.equal((await c.request('POST', `${page}/hangup`, { _csrf: 'not-the-token' })).status, 403, 'CSRF-protected');
  t.equal((await h.store.calls.get(sid))?.endedAt, null, 'still live');

  const done = await c.submit(page, `${page}/hangup`);
  t.same([done.status, done.location], [303, `${page}?done=call-ended`]);
  const ended = (await h.store.calls.get(sid))!;
  t.equal(ended.hangupCause, 'api-hangup', 'ended, with the request as its cause');
  const after = await c.request('GET', `${page}?done=call-ended`);
  t.match(after.text, /role="status">Call ended\.</);
  t.match(after.text, /ended by a request to hang it up/, 'the page says why it ended');
  t.notMatch(after.text, />Hang up</, 'no Hang up once over');
  const again = await c.submit(page, `${page}/hangup`);
  t.equal(again.status, 409);
  t.match(again.text, /role="alert">This call has already ended\./);
});

t.test('Redirect runs new instructions on a live call; bad URLs and ended calls are refused with the reason', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const a = await accountWithUser(h, 'a@example.com');
  await h.store.numbers.add(FROM, a.id, DEFAULT_NUMBER_SETTINGS);
  const app = await startWebhookApp(t);
  app.on('/next', { body: '<Response><Say>Moved.</Say><Hangup/></Response>' });
  const placed = await h.request('POST', '/api/calls', { key: a.key, body: { from: FROM, to: TO, markup: '<Response><Say loop="0">Please hold.</Say></Response>' } });
  t.equal(placed.status, 201, placed.text);
  const sid = placed.body.sid as string;
  await until('its markup runs', 10_000, async () => (await h.store.calls.timeline(sid)).some((e) => e.kind === 'verb'));
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  const page = `/dashboard/calls/${sid}`;
  t.match((await c.request('GET', page)).text, /<button type="submit">Redirect<\/button>/, 'a live call has Redirect');

  await accountWithUser(h, 'b@example.com');
  const b = new DashboardClient(h.url);
  await b.signIn('b@example.com', PASSWORD);
  t.equal((await b.submit('/dashboard/calls', `${page}/redirect`, { url: `${app.url}/next` })).status, 404, "another account's call is not found");
  t.equal((await c.request('POST', `${page}/redirect`, { _csrf: 'not-the-token', url: `${app.url}/next` })).status, 403, 'CSRF-protected');
  const bad = await c.submit(page, `${page}/redirect`, { url: 'ftp://example.com/x' });
  t.equal(bad.status, 422, 'a URL the customer-URL rule refuses');
  t.match(bad.text, /role="alert">/);
  t.equal(app.requests.length, 0, 'nothing was asked');

  const done = await c.submit(page, `${page}/redirect`, { url: `${app.url}/next`, method: 'GET' });
  t.same([done.status, done.location], [303, `${page}?done=call-redirected`]);
  t.equal(app.requests[0]?.method, 'GET', 'the URL was asked with the method chosen');
  await until('the new instructions hang up', 10_000, async () => (await h.store.calls.get(sid))?.endedAt != null);
  t.equal((await h.store.calls.get(sid))?.hangupCause, 'markup-hangup', 'the new instructions ran to their Hangup');
  const after = await c.request('GET', page);
  t.match(after.text, /A request redirected the call to http:\/\/127\.0\.0\.1:\d+\/next/, 'the timeline says who redirected it');
  t.notMatch(after.text, />Redirect</, 'no Redirect once over');
  const again = await c.submit(page, `${page}/redirect`, { url: `${app.url}/next` });
  t.equal(again.status, 409);
  t.match(again.text, /role="alert">This call has already ended\./);
});
