// The dashboard's Hang up and Redirect for a call another control plane carries (docs/cluster.md): the page is served
// by the node the browser reached, the form is carried out by the node that carries the call (its session cookie and
// CSRF token checked there), and the browser gets that node's answer (the redirect back to the call's page). Two
// whole control planes (sandbox engines) on one PostgreSQL database.
import t from 'tap';
import { startTwoNodes } from '../helpers/two-nodes.js';
import { until } from '../helpers/waits.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { DashboardClient, PASSWORD, accountWithUser } from '../dashboard/client.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';

const FROM = '+15550001000';
const TO = '+15557770001';
const HOLD = '<Response><Say loop="0">Please hold.</Say></Response>';

t.test("the dashboard's call controls, for a call the other node carries", async (t) => {
  const nodes = await startTwoNodes(t, { env: { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  if (!nodes) return;
  const [a, b] = nodes;
  const owner = await accountWithUser(a, 'a@example.com');
  await a.store.numbers.add(FROM, owner.id, DEFAULT_NUMBER_SETTINGS);
  const app = await startWebhookApp(t);
  app.on('/next', { body: '<Response><Say>Moved.</Say><Hangup/></Response>' });
  const heldOnB = async (): Promise<string> => {
    const placed = await b.request('POST', '/api/calls', { key: owner.key, body: { from: FROM, to: TO, markup: HOLD } });
    t.equal(placed.status, 201, placed.text);
    const sid = placed.body.sid as string;
    await until('its markup runs on B', 10_000, async () => (await a.store.calls.timeline(sid)).some((e) => e.kind === 'verb'));
    t.equal((await a.store.calls.get(sid))?.owner, b.store.instanceId, 'B carries it');
    return sid;
  };
  const c = new DashboardClient(a.url);
  await c.signIn('a@example.com', PASSWORD);

  const hungUp = await heldOnB();
  const page = `/dashboard/calls/${hungUp}`;
  t.equal((await c.request('POST', `${page}/hangup`, { _csrf: 'not-the-token' })).status, 403, 'a forged form is refused (by A, before anything is forwarded)');
  const done = await c.submit(page, `${page}/hangup`);
  t.same([done.status, done.location], [303, `${page}?done=call-ended`], "Hang up on A's page: B's answer, the redirect back to the page");
  t.equal((await a.store.calls.get(hungUp))?.hangupCause, 'api-hangup', 'the call B carries ended, with the request as its cause');
  const again = await c.submit(page, `${page}/hangup`);
  t.equal(again.status, 409, 'once over, A answers from the database');
  t.match(again.text, /This call has already ended\./);

  const moved = await heldOnB();
  const movedPage = `/dashboard/calls/${moved}`;
  const redirected = await c.submit(movedPage, `${movedPage}/redirect`, { url: `${app.url}/next`, method: 'GET' });
  t.same([redirected.status, redirected.location], [303, `${movedPage}?done=call-redirected`], 'Redirect on A: carried out by B');
  t.equal(app.requests[0]?.method, 'GET', 'B asked the URL with the method chosen');
  await until('the new instructions hang up', 10_000, async () => (await a.store.calls.get(moved))?.endedAt != null);
  t.equal((await a.store.calls.get(moved))?.hangupCause, 'markup-hangup', 'the new instructions ran to their Hangup on B');
});
