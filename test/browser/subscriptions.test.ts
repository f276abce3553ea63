// Webhook subscriptions in Chromium at desktop and phone width: create (secret once), test event, pause/resume,
// redeliver, delete; each checked against the store and a real receiver. Screenshot for docs/dashboard.md.
import t from 'tap';
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { startPreviewHarness } from '../http/preview/helpers.js';
import { startWebhookApp } from '../helpers/webhook-app.js';
import { accountWithUser } from '../dashboard/client.js';
import { ROOT } from '../helpers/spawn.js';
import { until } from '../helpers/waits.js';
import { SCREENSHOTS, SKIP, fieldError, horizontalOverflow, launch, screenshot, signIn } from './chromium.js';

for (const width of [1280, 390]) {
  t.test(`subscriptions CRUD with redeliver at ${width} px`, { skip: SKIP }, async (t) => {
    const h = await startPreviewHarness(t);
    const a = await accountWithUser(h, 'owner@example.com');
    const receiver = await startWebhookApp(t);
    receiver.on('/hook', { status: 503, body: 'busy' });
    const browser = await launch(t);
    const page = await (await browser.newContext({ viewport: { width, height: 900 } })).newPage();
    const dialogs: string[] = [];
    page.on('dialog', (d) => { dialogs.push(d.message()); void d.accept(); });
    await signIn(page, h, 'owner@example.com');
    // The receiver answers before the worker logs the attempt: reload until the page shows it.
    const shows = (what: RegExp) => until(String(what), 5_000, async () => {
      await page.reload();
      return what.test((await page.locator('#deliveries').textContent().catch(() => '')) ?? '');
    }, 50);
    const overflow = () => horizontalOverflow(page);

    await page.click('nav a:has-text("Webhooks")');
    await page.selectOption('#f-event_type', 'hangup');
    await page.fill('#f-target_url', `${receiver.url}/hook`);
    await page.click('button:has-text("Create subscription")');
    t.match(await fieldError(page, 'target_url'), /^This address cannot be used: .*allow-list/, 'refused in words beside the field');
    await h.store.orgSettings.allowHost(a.id, '127.0.0.1');
    await page.click('button:has-text("Create subscription")');
    const secret = (await page.locator('#new-secret').textContent())!.trim();
    t.match(secret, /^whsec_/, 'the secret is shown once');
    t.equal(await overflow(), 0, 'no horizontal overflow after creating');

    await page.click('a:has-text("Open the subscription")');
    await page.click('button:has-text("Send a test event")');
    await page.waitForURL(/done=test-event-queued/);
    await receiver.waitFor('/hook');
    const row = page.locator('#deliveries tbody tr').first();
    await shows(/HTTP 503/);
    t.match(await row.textContent(), /HTTP 503 in \d+ ms/, 'the failed attempt is listed with its status code');

    await page.click('button:has-text("Pause")');
    t.equal(await page.locator('#subscription-status').textContent(), 'Paused');
    await page.click('button:has-text("Resume")');
    t.equal(await page.locator('#subscription-status').textContent(), 'Active');

    receiver.on('/hook', { status: 200, body: '{}' });
    await row.locator('button:has-text("Redeliver")').click();
    await page.waitForURL(/done=redelivery-queued/);
    await receiver.waitFor('/hook', 2);
    await shows(/HTTP 200/);
    t.match(await row.textContent(), /HTTP 200 in \d+ ms/, 'the redelivery is listed first');
    t.equal(await page.locator('#deliveries tbody tr').count(), 2, 'beside the failed delivery');
    t.equal(await overflow(), 0, 'no horizontal overflow on the subscription page');
    if (width === 1280) {
      await screenshot(page, 'subscription');
      // docs/dashboard.md shows this page; refreshed on request only, so a test run leaves the tree clean.
      if (process.env.RINGBASE_UPDATE_DOCS_IMAGES === '1') {
        mkdirSync(path.join(ROOT, 'docs', 'images'), { recursive: true });
        copyFileSync(path.join(SCREENSHOTS, 'subscription.png'), path.join(ROOT, 'docs', 'images', 'subscription.png'));
      }
    }

    await page.click('button:has-text("Delete subscription")');
    await page.waitForURL(/done=subscription-deleted/);
    t.match(dialogs, [/^Delete this subscription\?/], 'deleting asked first');
    t.equal((await h.store.webhookSubscriptions.listForAccount(a.id, { beforeId: null, limit: 10 })).length, 0);
  });
}
