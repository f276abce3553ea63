// The conferences page in Chromium, at desktop and phone width: participants listed, a change made elsewhere
// appears without a reload (the live part), Mute and End conference work from the page without a reload (the
// button posts in the background; the focus stays on the row's button); no overflow.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { until } from '../helpers/waits.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import { accountWithUser } from '../dashboard/client.js';
import { SKIP, horizontalOverflow, launch, screenshot, signIn } from './chromium.js';

const FROM = '+15550001000';

t.test('conferences in Chromium at 1280 and 390 px', { skip: SKIP }, async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_TRUSTED_PROXIES: '127.0.0.1', RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const a = await accountWithUser(h, 'owner@example.com');
  await h.store.numbers.add(FROM, a.id, DEFAULT_NUMBER_SETTINGS);
  const parts: Array<{ confSid: string; callSid: string }> = [];
  for (const to of ['+15557770001', '+15557770002']) {
    const res = await h.request('POST', '/v1/conferences/Standup/participants', { key: a.key, body: { from: FROM, to }, headers: { 'x-forwarded-proto': 'https' } });
    parts.push({ confSid: res.body.conference_sid, callSid: res.body.call_sid });
  }
  const [x, y] = parts as [{ confSid: string; callSid: string }, { confSid: string; callSid: string }];
  await until('both in the room', 5_000, async () => (await h.store.conferences.countInProgress(x.confSid)) === 2);
  const browser = await launch(t);

  // The phone first, while the conference is open: its buttons must be reachable there too.
  for (const width of [390, 1280]) {
    const page = await browser.newPage({ viewport: { width, height: 900 }, ...(width === 390 ? { isMobile: true } : {}) });
    await signIn(page, h, 'owner@example.com');
    await page.goto(`${h.url}/dashboard/conferences`);
    await page.click('a:has-text("Standup")');
    await page.waitForSelector(`#p-${x.callSid}`);
    const overflow = await horizontalOverflow(page);
    t.equal(overflow, 0, `${width} px: no horizontal overflow`);
    if (width === 390) {
      const mute = page.locator(`#p-${y.callSid} button:has-text("Mute")`);
      const box = await mute.boundingBox();
      t.ok(box && box.x >= 0 && box.x + box.width <= 390, '390 px: the row\'s buttons are on screen, no sideways scrolling');
      await screenshot(page, 'conference-390');
      await mute.click();
      await page.waitForSelector(`#p-${y.callSid} td.muted:has-text("yes")`);
      t.equal((await h.store.conferences.participant(y.confSid, y.callSid))?.muted, true, '390 px: Mute from the page');
      await page.close();
      continue;
    }
    await screenshot(page, 'conference-1280');
    // A change made elsewhere (the API) shows up without a reload.
    await h.app.callServices.conferences.updateParticipant(x.confSid, y.callSid, { hold: true });
    await page.waitForFunction((sid) => document.querySelector(`#p-${sid} td.hold`)?.textContent === 'yes', y.callSid, { timeout: 5_000 });
    t.pass('the live table shows the hold set through the API');
    // Marks this document: a reload would lose it.
    await page.evaluate(() => { (window as unknown as { kept: boolean }).kept = true; });
    const notReloaded = () => page.evaluate(() => (window as unknown as { kept?: boolean }).kept === true);
    await page.click(`#p-${x.callSid} button:has-text("Mute")`);
    await page.waitForSelector(`#p-${x.callSid} td.muted:has-text("yes")`);
    t.equal((await h.store.conferences.participant(x.confSid, x.callSid))?.muted, true, 'Mute from the page');
    t.ok(await notReloaded(), 'the row changed without a reload');
    t.equal(await page.textContent('#conference-message'), 'Participant updated.', 'the outcome is shown');
    t.equal(await page.evaluate(() => document.activeElement?.textContent), 'Unmute', 'the focus stays on the row\'s button');
    page.once('dialog', (dialog) => void dialog.accept());
    await page.click('button:has-text("End conference")');
    await page.waitForSelector('#conference-status:has-text("completed")');
    t.equal((await h.store.conferences.get(x.confSid))?.status, 'completed', 'End conference from the page');
    t.ok(await notReloaded(), 'ended without a reload');
    t.equal(await page.locator('#conference-live button').count(), 0, 'no buttons once over');
    await page.close();
  }
});
