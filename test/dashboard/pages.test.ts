// Page furniture: a wrong address inside the dashboard keeps the navigation for a signed-in user; a favicon.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';

t.test('404 keeps the layout; favicon', async (t) => {
  const h = await startHarness(t);
  await accountWithUser(h, 'a@example.com');
  const anon = await fetch(`${h.url}/dashboard/nowhere`);
  t.equal(anon.status, 404);
  t.notMatch(await anon.text(), /<nav aria-label="Main">/, 'signed out: no navigation to show');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  for (const path of ['/dashboard/nowhere', '/dashboard/conferences/CF00000000000000000000000000000000', '/dashboard/calls/CA00000000000000000000000000000000']) {
    const page = await c.request('GET', path);
    t.equal(page.status, 404, path);
    t.match(page.text, /<nav aria-label="Main">/, `${path}: the navigation is kept`);
  }
  const icon = await fetch(`${h.url}/favicon.ico`);
  t.equal(icon.status, 200);
  t.equal(icon.headers.get('content-type'), 'image/svg+xml');
  t.match((await c.request('GET', '/dashboard/numbers')).text, /<link rel="icon" href="\/dashboard\/assets\/favicon.svg"/);
});

t.test('API keys have names: required in the dashboard, optional in the CLI', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'k@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('k@example.com', PASSWORD);
  const unnamed = await c.submit('/dashboard/keys', '/dashboard/keys', { name: '  ' });
  t.equal(unnamed.status, 422);
  t.match(unnamed.text, /id="e-name">[^<]*Give the key a name/);
  t.equal((await c.submit('/dashboard/keys', '/dashboard/keys', { name: 'x'.repeat(65) })).status, 422, 'at most 64 characters');
  const made = await c.submit('/dashboard/keys', '/dashboard/keys', { name: 'billing server' });
  t.equal(made.status, 201);
  t.match(made.text, /<td>billing server<\/td><td><code>sk_live_/);
  t.same((await h.store.apiKeys.listForAccount(a.id)).map((k) => k.name).filter(Boolean), ['billing server']);
});
