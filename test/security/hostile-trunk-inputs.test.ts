// Trunk settings, the webhook host allow-list and carriers under the input rules: every trunk callback URL under
// the one https rule (API and dashboard form), host names by the one rule (src/net/hostname.ts), caller IDs in E.164.
import t from 'tap';
import { operatorCli, startHarness, type Harness } from '../helpers/harness.js';
import { DashboardClient, PASSWORD, accountWithUser } from '../dashboard/client.js';
import { STATIC_HOSTILE_URLS } from '../net/support/hostile-urls.js';
import { BAD_HOSTNAMES } from '../net/support/bad-hostnames.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import { parseAddress, parseGateway, parseSource } from '../../src/cli/carrier-options.js';

const URL_FIELDS = ['voice_webhook_url', 'voice_fallback_url', 'voice_refer_url', 'cli_lookup_url', 'status_callback_url', 'hangup_url'];
const BAD_CALLER_IDS = ['5551234', '+0123', '+1 555 0100', 'abc', '+12345678901234567', '14155550100', '+1-415-555-0100', '+'];
const GOOD_SIP_DOMAINS = ['sip.example.com', 'SIP.Example.COM.', '10.0.0.5', '203.0.114.9', '[2001:db8::1]'];
const PRIVATE_IPS = ['10.0.0.1', '127.0.0.1', '169.254.169.254', '192.168.1.1', '::1', '[fd00::1]', '100.64.0.1'];
const trunkCount = async (h: Harness) => (await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM trunks'))!.n;

t.test('API: hostile URLs on every trunk URL field, bad SIP domains and caller IDs: 422 on the field, nothing stored', async (t) => {
  const h = await startHarness(t);
  await h.account();
  let refused = 0;
  for (const field of URL_FIELDS) {
    for (const url of STATIC_HOSTILE_URLS) {
      const res = await h.request('POST', '/api/partner/trunks', { body: { [field]: url } });
      if (res.status === 422 && res.body?.errors?.[field]) refused++;
      else t.fail(`${field}=${url}: ${res.status} ${res.text}`);
    }
    const plain = await h.request('POST', '/api/partner/trunks', { body: { [field]: 'http://hooks.example.com/x' } });
    t.same(plain.body.errors?.[field], [`The ${field} is refused (https_required): target must use https.`], `${field}: plain http refused without the dev flag`);
  }
  t.equal(refused, URL_FIELDS.length * STATIC_HOSTILE_URLS.length, `${refused} hostile URLs refused on ${URL_FIELDS.length} fields`);
  for (const host of BAD_HOSTNAMES) {
    const res = await h.request('POST', '/api/partner/trunks', { body: { sip_domain: host } });
    t.match(res.body?.errors?.sip_domain?.[0], /host name or IP address/, `sip_domain ${JSON.stringify(host)} refused`);
  }
  t.ok((await h.request('POST', '/api/partner/trunks', { body: { sip_domain: '::1' } })).body.errors.sip_domain, 'an IPv6 sip_domain needs its brackets');
  for (const id of BAD_CALLER_IDS) {
    const res = await h.request('POST', '/api/partner/trunks', { body: { default_caller_id: id, allowed_caller_ids: ['+14155550100', id] } });
    t.match(res.body?.errors?.default_caller_id?.[0], /E\.164/, `default_caller_id ${JSON.stringify(id)} refused`);
    t.match(res.body?.errors?.allowed_caller_ids, [new RegExp(`E\\.164.*"${id.replace(/[+]/g, '\\+')}"`)], `allowed_caller_ids ${JSON.stringify(id)} refused by name`);
  }
  t.equal(await trunkCount(h), 0, 'nothing stored');
  for (const sip_domain of GOOD_SIP_DOMAINS) {
    t.equal((await h.request('POST', '/api/partner/trunks', { body: { sip_domain } })).status, 201, `sip_domain ${sip_domain} accepted`);
  }
  const good = await h.request('POST', '/api/partner/trunks', {
    body: Object.fromEntries([...URL_FIELDS.map((f) => [f, `https://hooks.example.com/${f}`]), ['default_caller_id', '+14155550100'], ['allowed_caller_ids', ['+14155550100', '+442071838750']]]),
  });
  t.equal(good.status, 201, 'good values are accepted');
  for (const field of URL_FIELDS) {
    const upd = await h.request('PATCH', `/api/partner/trunks/${good.body.id}`, { body: { [field]: 'https://169.254.169.254/' } });
    t.equal(upd.status, 422, `updates follow the same rules (${field})`);
  }
  t.equal((await h.request('PUT', `/api/partner/trunks/${good.body.id}`, { body: { default_caller_id: '5551234' } })).status, 422, 'PUT too');
  t.same((await h.request('GET', `/api/partner/trunks/${good.body.id}`)).body.voice_webhook_url, 'https://hooks.example.com/voice_webhook_url', 'refused updates change nothing');
});

t.test('with the dev flag, plain http to loopback is accepted and nothing else private', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  await h.account();
  for (const field of URL_FIELDS) {
    t.equal((await h.request('POST', '/api/partner/trunks', { body: { [field]: 'http://127.0.0.1:3000/x' } })).status, 201, `${field}: loopback`);
    t.equal((await h.request('POST', '/api/partner/trunks', { body: { [field]: 'http://10.0.0.1/x' } })).status, 422, `${field}: private refused`);
    t.equal((await h.request('POST', '/api/partner/trunks', { body: { [field]: 'http://hooks.example.com/x' } })).status, 422, `${field}: public http refused`);
  }
});

t.test('dashboard trunk form: what the API refuses is refused beside the field, nothing stored', async (t) => {
  const h = await startHarness(t);
  await accountWithUser(h, 'a@example.com', { trunking: true });
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  const form = (fields: Record<string, string>) => c.submit('/dashboard/trunks/new', '/dashboard/trunks', { transport: 'tcp', status_callback_events: 'completed', ...fields });
  const atField = (res: { status: number; text: string }, field: string, message: RegExp) =>
    res.status === 422 && message.test(new RegExp(`id="e-${field}">([^<]*)`).exec(res.text)?.[1] ?? '');
  let refused = 0;
  for (const field of URL_FIELDS) {
    for (const url of STATIC_HOSTILE_URLS) {
      const res = await form({ [field]: url });
      if (atField(res, field, /./)) refused++;
      else t.fail(`form ${field}=${url}: ${res.status}`);
    }
    t.ok(atField(await form({ [field]: 'http://hooks.example.com/x' }), field, /^This address cannot be used: .*https/), `${field}: plain http refused at the field, in words`);
  }
  t.equal(refused, URL_FIELDS.length * STATIC_HOSTILE_URLS.length, `${refused} hostile URLs refused at ${URL_FIELDS.length} fields`);
  // An empty SIP domain is the service default in the form, so the empty name is not a refusal there.
  for (const host of BAD_HOSTNAMES.filter(Boolean)) {
    t.ok(atField(await form({ sip_domain: host }), 'sip_domain', /host name or IP address/), `sip_domain ${JSON.stringify(host)} refused at the field`);
  }
  for (const id of BAD_CALLER_IDS) {
    t.ok(atField(await form({ default_caller_id: id }), 'default_caller_id', /E\.164/), `default_caller_id ${JSON.stringify(id)} at the field`);
    t.ok(atField(await form({ allowed_caller_ids: `+14155550100\n${id}` }), 'allowed_caller_ids', /E\.164/), `allowed_caller_ids ${JSON.stringify(id)} at the field`);
  }
  t.equal(await trunkCount(h), 0, 'nothing stored');
  const saved = await form({ ...Object.fromEntries(URL_FIELDS.map((f) => [f, `https://hooks.example.com/${f}`])), sip_domain: 'sip.example.com', default_caller_id: '+14155550100' });
  t.equal(saved.status, 303, 'a good form is saved');
  const edit = /\/dashboard\/trunks\/(\d+)/.exec(saved.location ?? '')![1];
  const upd = await c.submit(`/dashboard/trunks/${edit}/edit`, `/dashboard/trunks/${edit}/edit`, { status_callback_events: 'completed', status_callback_url: 'https://10.0.0.1/cb' });
  t.ok(atField(upd, 'status_callback_url', /address_refused|private/), 'the edit form too');
  t.equal((await h.store.trunks.getById(Number(edit)))!.status_callback_url, 'https://hooks.example.com/status_callback_url', 'the refused edit changed nothing');
});

t.test('dashboard allow-list: malformed names and private IPs refused beside the field; good ones listed', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  const allow = (host: string) => c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host });
  for (const host of [...BAD_HOSTNAMES, ...PRIVATE_IPS]) {
    const res = await allow(host);
    t.ok(res.status === 422 && /id="e-host">[^<]*not a host name we can allow/.test(res.text), `allow-list ${JSON.stringify(host)} refused at the field`);
  }
  t.same((await h.store.orgSettings.get(a.id)).webhookHosts, [], 'the allow-list is unchanged');
  for (const host of ['hooks.example.com', 'API.Example.org.', '203.0.114.9', '[2606:4700::1111]']) t.equal((await allow(host)).status, 303, `${host} accepted`);
  t.same((await h.store.orgSettings.get(a.id)).webhookHosts, ['hooks.example.com', 'api.example.org', '203.0.114.9', '2606:4700::1111']);
});

t.test('allow-list under the dev flag: plain loopback too, nothing else private', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host: '127.0.0.1' })).status, 303);
  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host: '10.0.0.1' })).status, 422);
});

t.test('carrier addresses: the host name rule, private addresses allowed (operator input)', async (t) => {
  // parseAddress is what `carrier add --address` runs; the CLI itself is run below for the wiring.
  for (const host of BAD_HOSTNAMES) t.throws(() => parseAddress(host), /--address/, `carrier address ${JSON.stringify(host)} refused`);
  for (const host of BAD_HOSTNAMES.filter(Boolean)) t.throws(() => parseAddress(`${host}:5060`), /--address/, `with a port: ${JSON.stringify(host)}`);
  t.same(parseAddress('10.20.0.5:5080'), { host: '10.20.0.5', port: 5080 }, 'a private address is the operator\'s choice');
  t.same(parseAddress('[fd00::5]:5060'), { host: 'fd00::5', port: 5060 });
  t.same(parseAddress('sip.carrier.example'), { host: 'sip.carrier.example', port: null });
  t.throws(() => parseAddress('sip.carrier.example:70000'), /port/);
  // Gateways follow the same rule; sources are addresses or ranges only (a source address is what a packet says).
  for (const host of BAD_HOSTNAMES.filter(Boolean)) t.throws(() => parseGateway(`${host};transport=tls`), /--gateway/, `gateway ${JSON.stringify(host)} refused`);
  t.throws(() => parseGateway('10.0.0.1;transport=sctp'), /transport must be one of udp, tcp, tls/);
  t.throws(() => parseGateway('10.0.0.1;weight=2;weight=3'), /each once/);
  for (const bad of ['sip.carrier.example', '10.0.0.0/33', '10.0.0.1:0', '300.1.1.1', '']) t.throws(() => parseSource(bad), /--source/, `source ${JSON.stringify(bad)} refused`);
  t.same(parseSource('203.0.113.0/24:5060'), { network: '203.0.113.0/24', port: 5060 });
  t.same(parseSource('[2001:db8::/32]:5061'), { network: '2001:db8::/32', port: 5061 });
  t.same(parseSource('2001:db8::7'), { network: '2001:db8::7', port: null });
});

t.test('CLI: carrier add and org allow-host refuse with the reason, accept good hosts', async (t) => {
  const { rb } = await operatorCli(t);
  await rb('account', 'create', '--name', 'A');
  const bad = await rb('carrier', 'add', '--name', 'c1', '--address', 'a..example.com');
  t.equal(bad.code, 1);
  t.match(bad.stderr, /--address host "a\.\.example\.com" has an empty label/);
  t.equal((await rb('carrier', 'add', '--name', 'pbx', '--address', '10.20.0.5:5080')).code, 0, 'a private carrier address is the operator\'s choice');
  const privateHost = await rb('org', 'allow-host', '--account', '1', '10.0.0.1');
  t.equal(privateHost.code, 1, 'a private IP is not a webhook host');
  t.match(privateHost.stderr, /not a public address/);
  t.equal((await rb('org', 'allow-host', '--account', '1', 'com')).code, 1, 'nor a bare TLD');
  t.equal((await rb('org', 'allow-host', '--account', '1', 'hooks.example.com')).code, 0);
});

t.test('dashboard: the number form refuses every hostile webhook, fallback and transfer URL beside the field', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'n@example.com');
  await h.store.numbers.add('+14155550100', a.id, DEFAULT_NUMBER_SETTINGS);
  const c = new DashboardClient(h.url);
  await c.signIn('n@example.com', PASSWORD);
  const page = '/dashboard/numbers/%2B14155550100';
  const base = { response_format: 'xml', active: 'on', 'after_hours.action': 'hangup', 'recording.mode': 'off', 'recording.tracks': 'both' };
  for (const field of ['webhook_url', 'fallback_url', 'refer_url'] as const) {
    for (const url of STATIC_HOSTILE_URLS) {
      const res = await c.submit(page, page, { ...base, [field]: url });
      t.ok(res.status === 422 && res.text.includes(`id="e-${field}"`), `number ${field}=${url}: 422 at the field`);
    }
    t.equal((await h.store.numbers.getByE164('+14155550100'))!.settings[field], null, `${field}: nothing stored`);
  }
  t.equal((await c.submit(page, page, { ...base, webhook_url: 'https://hooks.example.com/voice', refer_url: 'https://hooks.example.com/transfer' })).status, 303, 'good URLs are saved');
  t.equal((await h.store.numbers.getByE164('+14155550100'))!.settings.refer_url, 'https://hooks.example.com/transfer');
});
