// The dashboard's words, page by page: every form given bad input answers with sentences a person reads (no API
// field names, refusal codes or schema jargon; a capital first, a full stop last), and every destructive action
// (delete, revoke, release, rotate, end, remove) is a red button that asks "<Verb> <thing>? <consequence>." first.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';
import { NumberService } from '../../src/numbers/service.js';

const NUMBER = '+14155550100';
const np = `/dashboard/numbers/${encodeURIComponent(NUMBER)}`;

const decode = (s: string) => s.replace(/<[^>]+>/g, ' ').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&').replace(/\s+/g, ' ').trim();
const messagesOf = (page: string) => [
  ...[...page.matchAll(/class="field-error"[^>]*>([\s\S]*?)<\/p>/g)].map((m) => decode(m[1]!)),
  ...[...page.matchAll(/class="error-summary"[\s\S]*?<ul>([\s\S]*?)<\/ul>/g)].flatMap((m) => [...m[1]!.matchAll(/<li>([\s\S]*?)<\/li>/g)].map((li) => decode(li[1]!))),
];

t.test('validation messages read as sentences on every form', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'owner@example.com');
  await new NumberService(h.store.numbers, { allowLocalTargets: false }).add(NUMBER, a.id, {});
  const c = new DashboardClient(h.url);
  await c.signIn('owner@example.com', PASSWORD);
  const forms: Array<[string, string, string, Record<string, string>]> = [
    ['API key without a name', '/dashboard/keys', '/dashboard/keys', { name: '' }],
    ['API key name too long', '/dashboard/keys', '/dashboard/keys', { name: 'x'.repeat(300) }],
    ['trunk', '/dashboard/trunks/new', '/dashboard/trunks', { transport: 'udp', label: 'x'.repeat(300), voice_webhook_url: 'ftp://x', status_callback_url: 'not a url', status_callback_events: 'sometimes' }],
    ['number settings', np, np, {
      webhook_url: 'ftp://x', response_format: 'yaml', 'after_hours.action': 'forward', 'after_hours.number': '12', 'ivr.enabled': 'on', 'ivr.prompt': '',
      'recording.callback_url': 'http://',
    }],
    ['subscription', '/dashboard/subscriptions', '/dashboard/subscriptions', { event_type: 'nope', target_url: 'http://example.com', timeout_ms: 'abc', max_retries: '99' }],
    ['webhook host', '/dashboard/settings', '/dashboard/settings/hosts', { host: 'bad host!' }],
    ['injection IP', '/dashboard/settings', '/dashboard/settings/ips', { cidr: '999.1.1.1/99' }],
    ['test call', '/dashboard/test-call', '/dashboard/test-call', { to: '123', from: 'abc' }],
  ];
  for (const [what, pagePath, action, form] of forms) {
    const page = await c.submit(pagePath, action, form);
    t.equal(page.status, 422, `${what}: refused`);
    const messages = messagesOf(page.text);
    t.ok(messages.length > 0, `${what}: says why`);
    for (const m of messages) {
      t.match(m, /^["A-Z0-9+]/, `${what}: "${m}" starts as a sentence`);
      t.match(m, /[.!?]$/, `${what}: "${m}" ends with a full stop`);
      t.notMatch(m, /\b[a-z]+_[a-z_]+\b/, `${what}: "${m}" names no API field or code`);
      t.notMatch(m, /must match pattern|must be (string|integer|number|boolean)|NaN|undefined|\[object/, `${what}: "${m}" has no schema jargon`);
    }
  }
});

t.test('every destructive action is a red button that asks first, in one form of words', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'owner@example.com');
  await new NumberService(h.store.numbers, { allowLocalTargets: false }).add(NUMBER, a.id, {});
  const trunk = (await h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'wss' } })).body as { id: number };
  await h.store.orgSettings.allowHost(a.id, 'hooks.example.com');
  await h.store.orgSettings.allowIp(a.id, '203.0.113.0/24');
  const c = new DashboardClient(h.url);
  await c.signIn('owner@example.com', PASSWORD);
  await c.submit('/dashboard/keys', '/dashboard/keys', { name: 'billing server' });
  await c.submit('/dashboard/settings', '/dashboard/settings/injection-token', {});
  const created = await c.submit('/dashboard/subscriptions', '/dashboard/subscriptions', {
    event_type: 'hangup', target_url: 'https://hooks.example.com/events', delivery_mode: 'async', timeout_ms: '5000', max_retries: '3',
  });
  const subscription = /\/dashboard\/subscriptions\/(WH[0-9a-f]+)/.exec(created.location ?? created.text)?.[1];
  t.ok(subscription, 'a subscription to look at');
  const pages = ['/dashboard/keys', `/dashboard/trunks/${trunk.id}`, np, '/dashboard/settings', `/dashboard/subscriptions/${subscription}`];
  let destructive = 0;
  for (const p of pages) {
    const page = await c.get(p);
    t.equal(page.status, 200, p);
    for (const form of page.text.matchAll(/<form method="post"[^>]*>[\s\S]*?<\/form>/g)) {
      const markup = form[0];
      const label = decode(/<button[^>]*>([\s\S]*?)<\/button>/.exec(markup)?.[1] ?? '');
      const danger = /<button[^>]*class="danger"/.test(markup);
      const confirm = /data-confirm="([^"]*)"/.exec(markup)?.[1];
      if (/^(Delete|Revoke|Release|Rotate|End|Remove|Kick)\b/.test(label)) {
        destructive++;
        t.ok(danger, `${p}: "${label}" is a red button`);
        t.ok(confirm, `${p}: "${label}" asks first`);
      }
      if (danger) t.ok(confirm, `${p}: the red "${label}" asks first`);
      if (confirm) t.match(decode(confirm), /^[A-Z][^?]*\? [A-Z].*\.$/, `${p}: "${decode(confirm)}" reads "<Verb> <thing>? <consequence>."`);
    }
  }
  t.ok(destructive >= 7, `${destructive} destructive actions checked (key, trunk, number, secret, token, hosts, IPs, subscription)`);
});
