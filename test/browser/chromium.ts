// Debian's Chromium driven by playwright-core; tests skip with one line when it is not installed.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type Page } from 'playwright-core';
import { ROOT } from '../helpers/spawn.js';
import type { Harness } from '../helpers/harness.js';
import { PASSWORD } from '../dashboard/client.js';
import { fieldId } from '../../src/http/dashboard/forms.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SKIP = existsSync(CHROMIUM) ? false : `${CHROMIUM} not found: browser tests skipped (apt-get install chromium)`;
export const SCREENSHOTS = path.join(ROOT, 'test', 'artifacts', 'screenshots');

export async function launch(t: { teardown(fn: () => unknown): void }): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run',
      '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  return browser;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Signs in with the keyboard only: type, Tab, type, Enter. */
export async function signIn(page: Page, h: Harness, email: string): Promise<void> {
  await page.goto(`${h.url}/dashboard/login`);
  await page.focus('#f-email');
  await page.keyboard.type(email);
  await page.keyboard.press('Tab');
  await page.keyboard.type(PASSWORD);
  await page.keyboard.press('Enter');
  await page.waitForURL(/\/dashboard\/numbers/);
}

/** The message shown beside a field, checking the input points at it for assistive technology. */
export async function fieldError(page: Page, name: string): Promise<string> {
  const id = fieldId(name).slice(2);
  const input = page.locator(`#f-${id}`);
  const describedBy = (await input.getAttribute('aria-describedby')) ?? '';
  if (!describedBy.split(' ').includes(`e-${id}`) || (await input.getAttribute('aria-invalid')) !== 'true') return `(no error on ${name})`;
  // Beside the field: in the same .field block as the input.
  const message = page.locator(`.field:has(> #f-${id}) > #e-${id}`);
  return (await message.count()) === 1 ? ((await message.textContent()) ?? '').trim() : `(error for ${name} not beside its field)`;
}
