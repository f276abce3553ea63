// Numbers in the browser: claim, every setting with its validation message, each setting's effect on a
// sandbox test call, the call log and a recording playing in the page.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { scaledClock } from '../helpers/scaled-clock.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import { accountWithUser } from '../dashboard/client.js';
import { SKIP, fieldError, horizontalOverflow, launch, screenshot, signIn } from './chromium.js';
import type { Page } from 'playwright-core';

const NUMBER = '+15550001000';

async function save(page: Page): Promise<void> {
  await page.click('button:has-text("Save settings")');
  await page.waitForLoadState();
}

/** Runs a test call from the dashboard and returns the transcript's lines. */
async function testCall(page: Page, base: string, digits = ''): Promise<string[]> {
  await page.goto(`${base}/dashboard/test-call?to=${encodeURIComponent(NUMBER)}`);
  await page.fill('#f-from', '+15557770001');
  await page.fill('#f-digits', digits);
  await page.fill('#f-max_seconds', '60');
  await page.click('button:has-text("Start test call")');
  // The call runs in the background: the page polls its transcript until it says the call ended.
  await page.waitForSelector('#transcript[data-ended]', { timeout: 60_000 });
  return page.locator('#transcript li').allTextContents();
}

t.test('numbers, settings and test calls in Chromium', { skip: SKIP }, async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }, clock: scaledClock(10) });
  const app = await startWebhookApp(t);
  app.on('/voice', xml('<Say>Hello from the webhook.</Say><Pause length="1"/><Hangup/>'));
  app.on('/closed', xml('<Say>We are closed.</Say><Hangup/>'));
  const a = await accountWithUser(h, 'owner@example.com');
  await h.store.numbers.add(NUMBER, null, DEFAULT_NUMBER_SETTINGS);
  await h.store.numbers.add('+15550001001', null, DEFAULT_NUMBER_SETTINGS);
  const browser = await launch(t);
  const page = await browser.newPage({ viewport: { width: 1100, height: 900 } });

  await page.goto(`${h.url}/dashboard/login`);
  await screenshot(page, 'login');
  await signIn(page, h, 'owner@example.com');
  await screenshot(page, 'numbers-pool');

  await page.click(`button:has-text("Claim ${NUMBER}")`);
  await page.waitForURL(/numbers\/%2B15550001000\?done=claimed/);
  t.equal((await h.store.numbers.getByE164(NUMBER))!.accountId, a.id, 'claimed');
  t.equal((await page.locator('#from-value').textContent())?.trim(), NUMBER, 'shown exactly as `from` is written');

  await t.test('every validation message beside its field', async (t) => {
    await page.fill('#f-webhook_url', 'not a url');
    await page.fill('#f-hangup_url', 'ftp://example.com/x');
    await page.fill('#f-client_ref', 'x'.repeat(65));
    await page.setChecked('#f-schedule-enabled', true);
    // The picker offers only valid zones; a tampered form must still get a message, not a 500.
    await page.evaluate(() => { const s = document.querySelector('#f-schedule-timezone') as HTMLSelectElement; s.add(new Option('Mars/Olympus', 'Mars/Olympus', true, true)); });
    await page.fill('#f-schedule-weekly-mon', '9am-5pm');
    await page.fill('#f-schedule-weekly-tue', '18:00-09:00');
    await page.selectOption('#f-after_hours-action', 'forward');
    await page.fill('#f-after_hours-number', '12345');
    await page.setChecked('#f-ivr-enabled', true);
    await page.fill('#f-ivr-prompt', '');
    await page.fill('#f-ivr-timeout_seconds', '99');
    await page.selectOption('#f-ivr-keys-1-action', 'forward');
    await page.fill('#f-ivr-keys-1-target', 'sales desk');
    await page.selectOption('#f-ivr-keys-star-action', 'queue');
    await page.fill('#f-ivr-keys-star-target', 'sales/desk');
    await page.fill('#f-recording-callback_url', 'nope');
    await save(page);
    const expected: Record<string, RegExp> = {
      webhook_url: /^This address cannot be used: not a valid absolute URL\.$/, hangup_url: /^This address cannot be used: scheme ftp: is not allowed; use https\.$/, client_ref: /at most 64 characters/,
      'schedule.timezone': /IANA time zone/, 'schedule.weekly.mon': /HH:MM/, 'schedule.weekly.tue': /end time must be after/,
      'after_hours.number': /E\.164/, 'ivr.prompt': /Enter the prompt/, 'ivr.timeout_seconds': /1 to 60/,
      'ivr.keys.1.target': /E\.164/, 'ivr.keys.*.target': /^Must not contain \/ or \\\.$/, 'recording.callback_url': /This address cannot be used: not a valid/,
    };
    for (const [field, message] of Object.entries(expected)) t.match(await fieldError(page, field), message, field);
    t.equal(await page.inputValue('#f-client_ref'), 'x'.repeat(65), 'what was typed is kept');
    t.ok(await page.locator('#error-summary').isVisible(), 'a summary links to the fields');
    await screenshot(page, 'number-validation-errors');

    await page.selectOption('#f-after_hours-action', 'webhook');
    await page.fill('#f-after_hours-url', '');
    await page.setChecked('#f-ivr-enabled', false);
    for (const k of ['1', 'star']) await page.selectOption(`#f-ivr-keys-${k}-action`, '');
    await page.fill('#f-ivr-prompt', 'Menu');
    await save(page);
    t.match(await fieldError(page, 'after_hours.url'), /This address cannot be used: not a valid/, 'after-hours webhook URL');
    t.equal((await h.store.numbers.getByE164(NUMBER))!.settings.webhook_url, null, 'nothing saved while invalid');
  });

  await t.test('webhook: the caller hears the markup; recording from answer', async (t) => {
    await page.goto(`${h.url}/dashboard/numbers/${encodeURIComponent(NUMBER)}`);
    await page.fill('#f-webhook_url', `${app.url}/voice`);
    await page.fill('#f-hangup_url', `${app.url}/hangup`);
    await page.fill('#f-client_ref', 'crm-42');
    await page.selectOption('#f-recording-mode', 'from-answer');
    await page.selectOption('#f-recording-tracks', 'inbound');
    await page.setChecked('#f-recording-immutable', true);
    await save(page);
    t.equal((await page.locator('.notice').textContent())?.trim(), 'Settings saved.');
    const s = (await h.store.numbers.getByE164(NUMBER))!.settings;
    t.same([s.webhook_url, s.client_ref, s.recording.mode, s.recording.tracks, s.recording.immutable], [`${app.url}/voice`, 'crm-42', 'from-answer', 'inbound', true]);
    await screenshot(page, 'number-settings');
    const lines = await testCall(page, h.url);
    t.ok(lines.some((l) => l.includes('Said: “Hello from the webhook.”')), 'heard the webhook markup');
    t.ok(lines.some((l) => /Asked the webhook for instructions \(POST/.test(l)), 'the webhook request is shown');
    t.ok(lines.some((l) => /Webhook answered with HTTP 200 in \d+ ms/.test(l)), 'with its status and latency');
    await screenshot(page, 'test-call');
    const hangup = await app.waitFor('/hangup');
    t.equal(hangup.form.get('ClientRef'), 'crm-42', 'hangup URL and client reference took effect');
  });

  await t.test('inactive: refused without the webhook', async (t) => {
    await page.goto(`${h.url}/dashboard/numbers/${encodeURIComponent(NUMBER)}`);
    await page.setChecked('#f-active', false);
    await save(page);
    const before = app.requests.filter((r) => r.path === '/voice').length;
    const lines = await testCall(page, h.url);
    t.ok(lines.some((l) => l.includes('The number is inactive: the call is refused')), 'routing says inactive');
    t.ok(lines.some((l) => l.includes('Caller was refused')), 'the caller is refused');
    t.equal(app.requests.filter((r) => r.path === '/voice').length, before, 'the webhook was not called');
  });

  await t.test('after hours: the after-hours webhook instead', async (t) => {
    await page.goto(`${h.url}/dashboard/numbers/${encodeURIComponent(NUMBER)}`);
    await page.setChecked('#f-active', true);
    await page.setChecked('#f-schedule-enabled', true);
    await page.selectOption('#f-schedule-timezone', 'Europe/London');
    await page.fill('#f-schedule-weekly-mon', '00:00-00:01');
    await page.selectOption('#f-after_hours-action', 'webhook');
    await page.fill('#f-after_hours-url', `${app.url}/closed`);
    await save(page);
    t.same((await h.store.numbers.getByE164(NUMBER))!.settings.schedule, { timezone: 'Europe/London', weekly: { mon: [{ start: '00:00', end: '00:01' }] } });
    const lines = await testCall(page, h.url);
    t.ok(lines.some((l) => l.includes('After hours: the after-hours webhook answers')), 'routing says after hours');
    t.ok(lines.some((l) => l.includes('Said: “We are closed.”')), 'the after-hours webhook answered');
  });

  await t.test('IVR: the key runs its action (voicemail)', async (t) => {
    await page.goto(`${h.url}/dashboard/numbers/${encodeURIComponent(NUMBER)}`);
    await page.setChecked('#f-schedule-enabled', false);
    await page.setChecked('#f-ivr-enabled', true);
    await page.fill('#f-ivr-prompt', 'Press 2 to leave a message, 9 to hang up.');
    await page.fill('#f-ivr-timeout_seconds', '5');
    await page.selectOption('#f-ivr-keys-2-action', 'voicemail');
    await page.selectOption('#f-ivr-keys-9-action', 'hangup');
    await page.selectOption('#f-ivr-keys-hash-action', 'queue');
    await page.fill('#f-ivr-keys-hash-target', 'support');
    await save(page);
    t.same((await h.store.numbers.getByE164(NUMBER))!.settings.ivr?.keys, { 2: { action: 'voicemail' }, 9: { action: 'hangup' }, '#': { action: 'queue', queue: 'support' } });
    const lines = await testCall(page, h.url, '2');
    t.ok(lines.some((l) => l.includes('Said: “Press 2 to leave a message, 9 to hang up.”')), 'the menu prompt');
    t.ok(lines.some((l) => l.includes('Caller pressed 2')), 'the key');
    t.ok(lines.some((l) => l.includes('Please leave a message')), 'voicemail ran');
    t.notOk(lines.some((l) => l.includes('Hello from the webhook')), 'the webhook was not asked');
  });

  await t.test('test-call form validation', async (t) => {
    await page.goto(`${h.url}/dashboard/test-call`);
    await page.fill('#f-from', 'abc');
    await page.fill('#f-digits', '12x');
    await page.fill('#f-max_seconds', '0');
    await page.click('button:has-text("Start test call")');
    t.match(await fieldError(page, 'from'), /E\.164/);
    t.match(await fieldError(page, 'digits'), /0-9/);
    t.match(await fieldError(page, 'max_seconds'), /1 to 300/);
  });

  await t.test('call log, filters, call detail and a recording playing', async (t) => {
    await page.goto(`${h.url}/dashboard/calls`);
    t.equal(await page.locator('#calls tbody tr').count(), 4, 'the four test calls');
    await screenshot(page, 'calls');
    await page.selectOption('#f-status', 'failed');
    await page.click('button:has-text("Filter")');
    const failed = await page.locator('#calls tbody tr').allTextContents();
    t.equal(failed.length, 1, 'one failed call');
    t.match(failed[0], /because the number is inactive/);
    await page.goto(`${h.url}/dashboard/calls?number=${encodeURIComponent(NUMBER)}&date=${new Date(h.clock.now()).toISOString().slice(0, 10)}`);
    t.equal(await page.locator('#calls tbody tr').count(), 4, 'filter by number and date');
    await page.goto(`${h.url}/dashboard/calls?date=2001-01-01`);
    t.equal(await page.locator('#calls tbody tr').count(), 0, 'another day has none');

    const webhookCall = (await h.store.calls.get(String(app.requests.find((r) => r.path === '/voice')!.headers['x-cpaas-call-sid'])))!;
    t.ok((await h.store.recordings.listForCall(webhookCall.sid)).length > 0, 'the webhook call was recorded');
    await page.goto(`${h.url}/dashboard/calls`);
    await page.click(`a[href="/dashboard/calls/${webhookCall.sid}"]`);
    const kinds = await page.locator('#timeline li').evaluateAll((rows) => rows.map((r) => `${r.getAttribute('data-kind')}|${r.textContent}`));
    t.ok(kinds.some((k) => /^webhook-reply\|.*HTTP 200 in \d+ ms/.test(k)), 'webhook reply with status and latency');
    t.ok(kinds.some((k) => k.startsWith('verb|') && k.includes('Speaking a prompt')), 'verbs run');
    t.ok(kinds.some((k) => k.startsWith('status-callback|') && k.includes('"completed"')), 'status callback');
    const audio = page.locator('audio').first();
    const media = await audio.evaluate(async (el: HTMLAudioElement) => {
      if (el.readyState < 1) await new Promise((resolve, reject) => { el.onloadedmetadata = resolve; el.onerror = () => reject(new Error('media error')); el.load(); });
      return { readyState: el.readyState, duration: el.duration };
    });
    t.ok(media.readyState >= 1, `audio element loaded (readyState ${media.readyState})`);
    t.ok(media.duration > 0, `with a duration (${media.duration} s)`);
    await screenshot(page, 'call-detail');

    const voicemailCall = (await h.store.calls.list(a.id, {})).calls.find((c) => c.hangupCause === 'voicemail-done');
    if (voicemailCall) {
      await page.goto(`${h.url}/dashboard/calls/${voicemailCall.sid}`);
      t.ok(await page.locator('#timeline li[data-kind="ivr-key"]').count() > 0, 'the IVR key is on the voicemail call\'s timeline');
    }
  });

  await t.test('readable on a phone', async (t) => {
    const phone = await browser.newPage({ viewport: { width: 390, height: 844 }, isMobile: true });
    await signIn(phone, h, 'owner@example.com');
    for (const p of ['/dashboard/numbers', `/dashboard/numbers/${encodeURIComponent(NUMBER)}`, '/dashboard/calls']) {
      await phone.goto(h.url + p);
      const overflow = await horizontalOverflow(phone);
      t.ok(overflow <= 1, `${p} fits the width (overflow ${overflow}px)`);
    }
    await phone.goto(`${h.url}/dashboard/numbers/${encodeURIComponent(NUMBER)}`);
    await screenshot(phone, 'number-settings-phone');
  });
});
