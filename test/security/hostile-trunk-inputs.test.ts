// Trunk settings, the webhook host allow-list and carriers under the input rules: every trunk callback URL under
// the one https rule (API and dashboard form), host names by the one rule, default caller IDs in E.164.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { cli } from '../helpers/spawn.js';
import { tempDir } from '../helpers/harness.js';
import { DashboardClient, PASSWORD, accountWithUser } from '../dashboard/client.js';
import { STATIC_HOSTILE_URLS } from '../net/support/hostile-urls.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';

const URL_FIELDS = ['voice_webhook_url', 'cli_lookup_url', 'status_callback_url', 'hangup_url'];
const BAD_HOSTS = ['', 'a', 'com', 'localhost', '-a.example.com', 'a-.example.com', 'a..example.com', `${'x'.repeat(64)}.example.com`,
  `${'abcdefghi.'.repeat(26)}com`, 'exa mple.com', 'https://x.example.com/', 'x.example.com:443', '*.example.com', 'example.123'];
const BAD_CALLER_IDS = ['5551234', '+0123', '+1 555 0100', 'abc', '+12345678901234567', '14155550100'];
const trunkCount = (h: { store: { db: { prepare(s: string): { get(): unknown } } } }) => (h.store.db.prepare('SELECT COUNT(*) AS n FROM trunks').get() as { n: number }).n;

t.test('API: hostile URLs on every trunk URL field, bad SIP domains and caller IDs: 422 on the field, nothing stored', async (t) => {
  const h = await startHarness(t);
  h.account();
  let refused = 0;
  for (const field of URL_FIELDS) {
    for (const url of STATIC_HOSTILE_URLS) {
      const res = await h.request('POST', '/api/partner/trunks', { body: { [field]: url } });
      if (res.status === 422 && res.body?.errors?.[field]) refused++;
      else t.fail(`${field}=${url}: ${res.status} ${res.text}`);
    }
  }
  t.equal(refused, URL_FIELDS.length * STATIC_HOSTILE_URLS.length, `${refused} hostile URLs refused on ${URL_FIELDS.length} fields`);
  const plain = await h.request('POST', '/api/partner/trunks', { body: { voice_webhook_url: 'http://hooks.example.com/voice' } });
  t.match(plain.body.errors.voice_webhook_url[0], /https_required/, 'plain http refused without the dev flag');
  for (const host of BAD_HOSTS.filter(Boolean)) {
    const res = await h.request('POST', '/api/partner/trunks', { body: { sip_domain: host } });
    t.equal(res.status, 422, `sip_domain ${JSON.stringify(host)} refused`);
  }
  for (const id of BAD_CALLER_IDS) {
    const res = await h.request('POST', '/api/partner/trunks', { body: { default_caller_id: id } });
    t.match(res.body?.errors?.default_caller_id?.[0], /E\.164/, `default_caller_id ${id} refused`);
  }
  t.equal(trunkCount(h), 0, 'nothing stored');
  const good = await h.request('POST', '/api/partner/trunks', {
    body: { voice_webhook_url: 'https://hooks.example.com/voice', sip_domain: 'sip.example.com', default_caller_id: '+14155550100', allowed_caller_ids: ['+14155550100'] },
  });
  t.equal(good.status, 201, 'good values are accepted');
  const upd = await h.request('PATCH', `/api/partner/trunks/${good.body.id}`, { body: { status_callback_url: 'http://169.254.169.254/' } });
  t.equal(upd.status, 422, 'updates follow the same rules');
});

t.test('with the dev flag, plain http to loopback is accepted and nothing else private', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  h.account();
  t.equal((await h.request('POST', '/api/partner/trunks', { body: { voice_webhook_url: 'http://127.0.0.1:3000/voice' } })).status, 201);
  t.equal((await h.request('POST', '/api/partner/trunks', { body: { voice_webhook_url: 'http://10.0.0.1/voice' } })).status, 422);
});

t.test('dashboard: the trunk form and the host allow-list refuse what the API refuses, beside the field', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com', { trunking: true });
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  const form = (fields: Record<string, string>) => c.submit('/dashboard/trunks/new', '/dashboard/trunks', { transport: 'tcp', status_callback_events: 'completed', ...fields });
  for (const url of STATIC_HOSTILE_URLS) {
    const res = await form({ voice_webhook_url: url });
    t.ok(res.status === 422 && res.text.includes('id="e-voice_webhook_url"'), `form voice_webhook_url=${url}: 422 at the field`);
  }
  const one = await form({ default_caller_id: '5551234' });
  t.match(one.text, /id="e-default_caller_id">[^<]*E\.164/, 'the caller ID message sits at its field');
  t.equal(trunkCount(h), 0, 'nothing stored');
  t.equal((await form({ voice_webhook_url: 'https://hooks.example.com/voice', default_caller_id: '+14155550100' })).status, 303, 'a good form is saved');
  for (const host of [...BAD_HOSTS.filter(Boolean), '10.0.0.1', '127.0.0.1', '169.254.169.254']) {
    const res = await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host });
    t.equal(res.status, 422, `allow-list ${host} refused`);
  }
  t.same(h.store.orgSettings.get(a.id).webhookHosts, [], 'the allow-list is unchanged');
  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host: '203.0.114.9' })).status, 303, 'a public IP is accepted');
});

t.test('CLI: carriers and the allow-list follow the host rule', async (t) => {
  const rb = cli(tempDir(t));
  await rb('account', 'create', '--name', 'A');
  for (const host of ['a..example.com', '-x.example.com', 'com', 'exa mple.com']) {
    const res = await rb('carrier', 'add', '--name', `c${Math.random().toString(36).slice(2, 6)}`, '--address', host);
    t.equal(res.code, 1, `carrier ${host} refused: ${res.stderr.trim()}`);
  }
  t.equal((await rb('carrier', 'add', '--name', 'pbx', '--address', '10.20.0.5:5080')).code, 0, 'a private carrier address is the operator\'s choice');
  t.equal((await rb('org', 'allow-host', '--account', '1', '10.0.0.1')).code, 1, 'a private IP is not a webhook host');
  t.equal((await rb('org', 'allow-host', '--account', '1', 'hooks.example.com')).code, 0);
});

t.test('dashboard: the number form refuses every hostile webhook URL beside the field', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'n@example.com');
  h.store.numbers.add('+14155550100', a.id, DEFAULT_NUMBER_SETTINGS);
  const c = new DashboardClient(h.url);
  await c.signIn('n@example.com', PASSWORD);
  const page = '/dashboard/numbers/%2B14155550100';
  const base = { response_format: 'xml', active: 'on', 'after_hours.action': 'hangup', 'recording.mode': 'off', 'recording.tracks': 'both' };
  for (const url of STATIC_HOSTILE_URLS) {
    const res = await c.submit(page, page, { ...base, webhook_url: url });
    t.ok(res.status === 422 && res.text.includes('id="e-webhook_url"'), `number webhook_url=${url}: 422 at the field`);
  }
  t.equal(h.store.numbers.getByE164('+14155550100')!.settings.webhook_url, null, 'nothing stored');
  t.equal((await c.submit(page, page, { ...base, webhook_url: 'https://hooks.example.com/voice' })).status, 303, 'a good URL is saved');
});
