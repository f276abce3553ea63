// API keys, trunks and organisation settings in the browser, each checked against the live API.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { accountWithUser } from '../dashboard/client.js';
import { SKIP, fieldError, launch, screenshot, signIn } from './chromium.js';

t.test('API keys, trunks and settings in Chromium', { skip: SKIP }, async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'owner@example.com');
  const browser = await launch(t);
  const context = await browser.newContext({ viewport: { width: 1100, height: 900 } });
  const page = await context.newPage();
  page.on('dialog', (d) => void d.accept());
  await signIn(page, h, 'owner@example.com');

  await t.test('create an API key, use it, delete it', async (t) => {
    await page.goto(`${h.url}/dashboard/keys`);
    await page.click('button:has-text("Create API key")');
    t.match(await page.locator('#e-name').textContent(), /Give the key a name/, 'a key needs a name');
    await page.fill('#f-name', 'billing server');
    await page.click('button:has-text("Create API key")');
    const key = (await page.locator('#new-key').textContent())!.trim();
    t.match(key, /^sk_live_[A-Za-z0-9_-]{43}$/, 'shown once');
    // The page's script shows the button once the document is parsed: wait for it, as a loaded machine may be later.
    const copy = page.locator('button[data-copy="new-key"]');
    t.ok(await copy.waitFor({ state: 'visible', timeout: 10_000 }).then(() => true, () => false), 'with a copy button');
    await screenshot(page, 'api-key-created');
    t.equal((await h.request('GET', '/api/partner/trunks', { key })).status, 200, 'the key works with the API');
    await page.goto(`${h.url}/dashboard/keys`);
    t.notMatch(await page.content(), key, 'never shown again');
    // Found by its name: a text match is case-insensitive, so the key's last four ("lETE") once matched every row's
    // Delete button too.
    const row = page.locator('tr', { hasText: 'billing server' });
    t.match(await row.textContent(), new RegExp(`sk_live_${key.slice(8, 12).replace(/[-]/g, '\\-')}…${key.slice(-4)}`), 'listed by prefix and last 4');
    t.match(await row.textContent(), /UTC/, 'with its last use');
    await row.locator('button:has-text("Delete")').click();
    await page.waitForURL(/done=key-deleted/);
    t.equal((await h.request('GET', '/api/partner/trunks', { key })).status, 401, 'deleted: the API refuses it');
    await screenshot(page, 'api-keys');
  });

  await t.test('trunk form validation beside each field', async (t) => {
    await page.goto(`${h.url}/dashboard/trunks/new`);
    await page.fill('#f-sip_domain', 'bad domain!');
    await page.fill('#f-voice_webhook_url', 'nope');
    await page.fill('#f-cli_lookup_url', 'mailto:x@example.com');
    await page.fill('#f-default_caller_id', '1'.repeat(33));
    await page.fill('#f-status_callback_url', 'also bad');
    await page.fill('#f-status_callback_events', 'completed bogus');
    await page.fill('#f-hangup_url', '::');
    await page.fill('#f-allowed_caller_ids', `+15550001000\n${'9'.repeat(40)}`);
    await page.fill('#f-label', 'x'.repeat(256));
    await page.click('button:has-text("Create trunk")');
    const expected: Record<string, RegExp> = {
      sip_domain: /host name or IP/, voice_webhook_url: /starts with https:\/\//, cli_lookup_url: /starts with https:\/\//,
      default_caller_id: /32 characters/, status_callback_url: /starts with https:\/\//, status_callback_events: /space-separated/,
      hangup_url: /starts with https:\/\//, allowed_caller_ids: /32 characters/, label: /Use at most 255 characters/,
    };
    for (const [field, message] of Object.entries(expected)) t.match(await fieldError(page, field), message, field);
    t.equal((await h.store.trunks.listForAccount(a.id)).length, 0, 'nothing created');
    await screenshot(page, 'trunk-validation-errors');
  });

  await t.test('create a wss trunk and read its connection', async (t) => {
    await page.goto(`${h.url}/dashboard/trunks/new`);
    await page.fill('#f-label', 'Agent seat');
    await page.selectOption('#f-transport', 'wss');
    await page.fill('#f-status_callback_events', 'ringing completed');
    await page.setChecked('#f-dual_channel_recording', true);
    await page.fill('#f-allowed_caller_ids', '+15550001000\n+15550001001');
    await page.click('button:has-text("Create trunk")');
    await page.waitForURL(/\/dashboard\/trunks\/\d+\?done=trunk-saved/);
    const id = Number(/trunks\/(\d+)/.exec(page.url())![1]);
    const api = (await h.request('GET', `/api/partner/trunks/${id}/connection`, { key: a.key })).body;
    t.equal((await page.locator('#wss-url').textContent())?.trim(), api.wss_url, 'WSS URL as the API gives it');
    t.equal((await page.locator('#sip-username').textContent())?.trim(), api.username, 'username');
    t.notMatch(await page.content(), api.password, 'password hidden until asked for');
    const snippet = (await page.locator('#jssip-snippet').textContent())!;
    t.match(snippet, api.wss_url);
    t.match(snippet, `sip:${api.username}@${api.sip_domain}`);
    t.match(snippet, 'YOUR_SIP_PASSWORD');
    t.match(snippet, api.ice_servers[0].urls[0], 'ICE servers');
    t.notMatch(snippet, api.password, 'the snippet never carries the password');
    t.match(snippet, /import JsSIP from "http:\/\/127\.0\.0\.1:\d+\/dashboard\/assets\/jssip\.js";/, 'JsSIP from the platform itself (RINGBASE_PUBLIC_URL)');
    t.notMatch(snippet, /cdn|jsdelivr/i, 'not from a CDN');
    await page.click('button:has-text("Reveal password")');
    t.equal((await page.locator('#sip-password').textContent())?.trim(), api.password, 'revealed on demand');
    await screenshot(page, 'trunk-connection');
    const stored = (await h.store.trunks.getById(id))!;
    t.same([stored.label, stored.status_callback_events, stored.dual_channel_recording, stored.allowed_caller_ids],
      ['Agent seat', 'ringing completed', true, ['+15550001000', '+15550001001']]);

    await page.goto(`${h.url}/dashboard/trunks/${id}/edit`);
    await page.fill('#f-label', 'Agent seat 2');
    await page.click('button:has-text("Save trunk")');
    await page.waitForURL(/done=trunk-saved/);
    t.equal((await h.store.trunks.getById(id))!.label, 'Agent seat 2', 'edited');
    await page.goto(`${h.url}/dashboard/trunks`);
    t.match(await page.locator('table').textContent(), /Agent seat 2/);
    await screenshot(page, 'trunks');
    await page.goto(`${h.url}/dashboard/trunks/${id}`);
    await page.click('button:has-text("Revoke trunk")');
    await page.waitForURL(/done=trunk-revoked/);
    t.equal((await h.request('GET', `/api/partner/trunks/${id}`, { key: a.key })).body.status, 'revoked', 'revoked');
  });

  await t.test('signing secret: reveal and rotate', async (t) => {
    await page.goto(`${h.url}/dashboard/settings`);
    t.notMatch(await page.content(), /whsec_[A-Za-z0-9_-]{20}/, 'masked');
    await page.click('button:has-text("Reveal secret")');
    const first = (await page.locator('#signing-secret').textContent())!.trim();
    t.equal(first, await h.app.signingSecrets.get(a.id));
    await page.click('button:has-text("Rotate secret")');
    await page.waitForURL(/done=rotated/);
    await page.click('button:has-text("Reveal secret")');
    const second = (await page.locator('#signing-secret').textContent())!.trim();
    t.not(second, first, 'rotated');
    t.equal(second, await h.app.signingSecrets.get(a.id));
    await screenshot(page, 'settings');
  });

  await t.test('without trunk access the trunk pages explain why', async (t) => {
    await h.store.accounts.update(a.id, { trunking: false });
    await page.goto(`${h.url}/dashboard/trunks`);
    t.match(await page.locator('main').textContent(), /Trunk access is not enabled/);
  });
});
