// The dashboard's call experience in Chromium at 1280 and 390 px: a test call whose transcript grows while the
// page stays put, the home page's charts, a call's waterfall, and no sideways scrolling on any of these pages.
// UPDATE_DOC_IMAGES=1 also writes the screenshots docs/dashboard.md shows (docs/images/).
import t from 'tap';
import { copyFileSync } from 'node:fs';
import path from 'node:path';
import { startHarness } from '../helpers/harness.js';
import { scaledClock } from '../helpers/scaled-clock.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { ROOT } from '../helpers/spawn.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import { newSid } from '../../src/crypto/tokens.js';
import { accountWithUser } from '../dashboard/client.js';
import { SCREENSHOTS, SKIP, horizontalOverflow, launch, screenshot, signIn } from './chromium.js';
import type { Page } from 'playwright-core';

const NUMBER = '+15550001000';
const DAY_MS = 86_400_000;

/** A screenshot; the desktop ones (`doc`) are also the documentation's pictures. */
async function shot(page: Page, name: string, doc: boolean): Promise<void> {
  await screenshot(page, name);
  if (doc && process.env.UPDATE_DOC_IMAGES) copyFileSync(path.join(SCREENSHOTS, `${name}.png`), path.join(ROOT, 'docs', 'images', `${name}.png`));
}


t.test('test call, home charts and waterfall in Chromium', { skip: SKIP }, async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }, clock: scaledClock(10) });
  const app = await startWebhookApp(t);
  const a = await accountWithUser(h, 'owner@example.com');
  await h.store.numbers.add(NUMBER, a.id, { ...DEFAULT_NUMBER_SETTINGS, webhook_url: `${app.url}/voice` });
  app.on('/menu', xml('<Say>Connecting you to sales.</Say><Pause length="1"/><Hangup/>'));
  // A fortnight of history for the charts: a few calls a day, most answered.
  for (let ago = 1; ago < 14; ago++) {
    for (let i = 0; i < (ago * 7) % 5 + 1; i++) {
      const sid = newSid('CA');
      await h.store.calls.create({ sid, accountId: a.id, direction: 'inbound', from: '+15557770001', to: NUMBER, status: 'ringing', createdAtMs: h.clock.now() - ago * DAY_MS });
      const answered = (ago + i) % 4 !== 0;
      await h.store.sql.run(`UPDATE calls SET status = ?, hangup_cause = ?, answered_at = CASE WHEN ? = 1 THEN created_at END, ended_at = created_at, duration = ?
        WHERE sid = ?`, [answered ? 'completed' : 'no-answer', answered ? 'normal' : 'no-answer', answered ? 1 : 0, answered ? 30 + 7 * i : 0, sid]);
    }
  }
  const browser = await launch(t);

  for (const width of [1280, 390]) {
    await t.test(`${width} px`, async (t) => {
      const page = await browser.newPage({ viewport: { width, height: 900 }, isMobile: width === 390 });
      await signIn(page, h, 'owner@example.com');

      // The webhook holds its answer until the page has shown the call in progress.
      let release!: () => void;
      const held = new Promise<void>((r) => { release = r; });
      app.on('/voice', async () => { await held; return xml(`<Gather numDigits="1" action="${app.url}/menu"><Say>Press 1 for sales.</Say></Gather>`); });
      await page.goto(`${h.url}/dashboard/test-call?to=${encodeURIComponent(NUMBER)}`);
      await page.fill('#f-digits', '1');
      await page.click('button:has-text("Start test call")');
      await page.waitForSelector('#test-call-live :text("The call is in progress")');
      t.pass('the page is back while the webhook has not answered yet');
      await page.evaluate(() => { (window as unknown as { stayed: boolean }).stayed = true; });
      release();
      await page.waitForSelector('#transcript li:has-text("Caller pressed 1")', { timeout: 30_000 });
      await page.waitForSelector('#transcript[data-ended]', { timeout: 30_000 });
      const lines = await page.locator('#transcript li').allTextContents();
      t.ok(lines.some((l) => l.includes('Said: “Press 1 for sales.”')), 'the prompt, as a sentence');
      t.ok(lines.some((l) => /Webhook answered with HTTP 200 in \d+ ms/.test(l)), 'the webhook answer with its time');
      t.ok(lines.some((l) => l.includes('Call ended at the <Hangup> instruction')), 'the cause in words');
      t.ok(await page.evaluate(() => (window as unknown as { stayed?: boolean }).stayed === true), 'the transcript grew in place: no page load');
      t.equal(await horizontalOverflow(page), 0, 'test call page: no horizontal overflow');
      if (width === 1280) await shot(page, 'dashboard-test-call', true);

      await page.click('#test-call-live a[href^="/dashboard/calls/CA"]');
      await page.waitForSelector('#waterfall');
      const kinds = await page.locator('#waterfall g.step').evaluateAll((gs) => gs.map((g) => g.getAttribute('data-kind')));
      for (const k of ['webhook', 'prompt', 'keys', 'call']) t.ok(kinds.includes(k), `the waterfall draws ${k}`);
      const svg = (await page.locator('#waterfall').boundingBox())!;
      const bars = await page.locator('#waterfall rect').evaluateAll((rs) => rs.map((r) => { const b = r.getBoundingClientRect(); return [b.left, b.right]; }));
      t.ok(bars.every(([l, r]) => l! >= svg.x - 0.5 && r! <= svg.x + svg.width + 0.5), 'every bar inside the picture');
      t.equal(await horizontalOverflow(page), 0, 'call page: no horizontal overflow');
      await shot(page, width === 1280 ? 'dashboard-waterfall' : 'dashboard-waterfall-phone', width === 1280);

      await page.click('a.brand');
      await page.waitForSelector('#chart-calls');
      t.equal(await page.locator('#chart-calls g.bar').count(), 14, 'calls per day: 14 bars');
      t.equal(await page.locator('#chart-answer g.bar').count(), 14, 'answer rate: 14 bars');
      const chart = (await page.locator('#chart-calls').boundingBox())!;
      t.ok(chart.width <= width && chart.height > 100, `the chart fits (${Math.round(chart.width)} px wide)`);
      t.ok(await page.locator('#calls tbody tr').count() >= 2, 'the last calls');
      t.equal(await horizontalOverflow(page), 0, 'home: no horizontal overflow');
      await shot(page, width === 1280 ? 'dashboard-home' : 'dashboard-home-phone', width === 1280);

      await page.goto(`${h.url}/dashboard/calls`);
      t.equal(await horizontalOverflow(page), 0, 'call list: no horizontal overflow');
      if (width === 390) {
        const cell = (await page.locator('#calls tbody tr').first().boundingBox())!;
        t.ok(cell.x + cell.width <= 390, 'a call is one block inside the screen');
      }
      await page.close();
    });
  }
});
