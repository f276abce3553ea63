import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';

t.test('organisation settings: host allow-list, injection token and IPs', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);

  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host: 'Hooks.Example.com' })).status, 303);
  t.same((await h.store.orgSettings.get(a.id)).webhookHosts, ['hooks.example.com']);
  const bad = await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host: 'https://x.example/path' });
  t.equal(bad.status, 422);
  t.match(bad.text, /<p class="field-error" id="e-host">[^<]*not a host name/, 'the message sits at the host field');
  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/hosts/remove', { host: 'hooks.example.com' })).status, 303);
  t.same((await h.store.orgSettings.get(a.id)).webhookHosts, []);

  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/ips', { cidr: '203.0.113.7/24' })).status, 303);
  t.same((await h.store.orgSettings.get(a.id)).injectionIps, ['203.0.113.0/24']);
  t.match((await c.submit('/dashboard/settings', '/dashboard/settings/ips', { cidr: 'nope' })).text, /id="e-cidr">[^<]*not an IP address/);

  const rotated = await c.submit('/dashboard/settings', '/dashboard/settings/injection-token');
  const token = /id="injection-token"><code>(inj_[^<]+)</.exec(rotated.text)?.[1];
  t.ok(token, 'the new token is shown once');
  t.equal(await h.store.orgSettings.accountForInjectionToken(token!), a.id, 'and works');
  t.notMatch((await c.get('/dashboard/settings')).text, token!, 'not shown again');

  t.match((await c.get('/dashboard/settings')).text, /href="\/dashboard\/subscriptions"/, 'subscriptions have a page of their own');
});
