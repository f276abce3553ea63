import t from 'tap';
import { systemClock } from '../../src/clock.js';
import { openTestStore, operatorCli } from '../helpers/harness.js';

t.test('settings repo: hosts, CIDRs, token stored hashed', async (t) => {
  const store = await openTestStore(t, systemClock());
  const id = (await store.accounts.create({ name: 'a', trunking: false, trunkCapacity: 1 })).id;
  t.same(await store.orgSettings.get(id), { accountId: id, webhookHosts: [], injectionIps: [], injectionTokenSet: false, injectionTokenRotatedAt: null });
  t.same((await store.orgSettings.allowHost(id, ' Hooks.Example.COM. ')).webhookHosts, ['hooks.example.com']);
  t.same((await store.orgSettings.allowHost(id, 'hooks.example.com')).webhookHosts, ['hooks.example.com'], 'no duplicates');
  t.same((await store.orgSettings.allowHost(id, '[::1]')).webhookHosts, ['hooks.example.com', '::1']);
  for (const bad of ['https://x.com/', '*.example.com', 'a b', 'user@x.com', '']) await t.rejects(store.orgSettings.allowHost(id, bad), /not a host/, bad);
  t.same((await store.orgSettings.removeHost(id, '::1')).webhookHosts, ['hooks.example.com']);
  await t.rejects(store.orgSettings.removeHost(id, 'other.com'), /not on the webhook host allow-list/);
  // An entry listed before the host name rule (a single label) can still be taken off the list.
  await store.sql.run(`UPDATE org_settings SET webhook_hosts = '["hooks.example.com","intranet"]' WHERE account_id = ?`, [id]);
  t.same((await store.orgSettings.removeHost(id, 'Intranet')).webhookHosts, ['hooks.example.com'], 'a pre-rule entry is removable');
  t.same((await store.orgSettings.allowIp(id, '10.1.2.3/8')).injectionIps, ['10.0.0.0/8']);
  await t.rejects(store.orgSettings.allowIp(id, '10.0.0.0/33'), /not an IP address or CIDR/);
  t.equal(await store.orgSettings.injectionIpAllowed(id, '10.9.9.9'), true);
  t.equal(await store.orgSettings.injectionIpAllowed(id, '::ffff:10.9.9.9'), true, 'IPv4-mapped peers match');
  t.equal(await store.orgSettings.injectionIpAllowed(id, '11.0.0.1'), false);
  t.same((await store.orgSettings.removeIp(id, '10.0.0.0/8')).injectionIps, []);
  const token = await store.orgSettings.rotateInjectionToken(id);
  t.match(token, new RegExp(`^inj_${id}_`));
  t.equal(await store.orgSettings.accountForInjectionToken(token), id);
  const row = await store.sql.one<Record<string, string>>('SELECT * FROM org_settings WHERE account_id = ?', [id]);
  t.notOk(JSON.stringify(row).includes(token), 'only the hash is stored');
  t.equal(await store.orgSettings.accountForInjectionToken('junk'), null);
});

t.test('operator CLI: org show / allow-host / remove-host / allow-ip / remove-ip / rotate-injection-token', async (t) => {
  const { rb: ringbase } = await operatorCli(t);
  const account = JSON.parse((await ringbase('--json', 'account', 'create', '--name', 'Acme')).stdout).id as number;
  const a = String(account);
  t.match(JSON.parse((await ringbase('--json', 'org', 'allow-host', '--account', a, 'hooks.example.com')).stdout), { webhook_hosts: ['hooks.example.com'] });
  t.match(JSON.parse((await ringbase('--json', 'org', 'allow-ip', '--account', a, '203.0.113.0/24')).stdout), { injection_ips: ['203.0.113.0/24'] });
  const rotated = JSON.parse((await ringbase('--json', 'org', 'rotate-injection-token', '--account', a)).stdout);
  t.match(rotated.token, /^inj_/);
  const shown = JSON.parse((await ringbase('--json', 'org', 'show', '--account', a)).stdout);
  t.match(shown, { account, webhook_hosts: ['hooks.example.com'], injection_ips: ['203.0.113.0/24'], injection_token_set: true });
  t.notOk(JSON.stringify(shown).includes(rotated.token), 'show never prints the token');
  t.match(JSON.parse((await ringbase('--json', 'org', 'remove-host', '--account', a, 'hooks.example.com')).stdout), { webhook_hosts: [] });
  t.match(JSON.parse((await ringbase('--json', 'org', 'remove-ip', '--account', a, '203.0.113.0/24')).stdout), { injection_ips: [] });
  const human = await ringbase('org', 'show', '--account', a);
  t.match(human.stdout, /webhook hosts:\s+\(none/);
  const bad = await ringbase('org', 'allow-host', '--account', a, 'https://x/');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /not a host name/);
  const missing = await ringbase('org', 'show', '--account', '999');
  t.equal(missing.code, 1);
  t.match(missing.stderr, /no account 999/);
});
