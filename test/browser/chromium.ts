// Debian's Chromium driven by playwright-core; tests skip with one line when it is not installed.
import { existsSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import type { Test } from 'tap';
import { ROOT } from '../helpers/spawn.js';
import type { Harness } from '../helpers/harness.js';
import { PASSWORD } from '../dashboard/client.js';
import { fieldId } from '../../src/http/dashboard/forms.js';

export const CHROMIUM = '/usr/bin/chromium';
export const SKIP = existsSync(CHROMIUM) ? false : `${CHROMIUM} not found: browser tests skipped (apt-get install chromium)`;
export const SCREENSHOTS = path.join(ROOT, 'test', 'artifacts', 'screenshots');

/** What a browser test reports to: failures of its pages' off-loopback requests, and the browser's closing. */
export type BrowserTest = Pick<Test, 'teardown' | 'fail'>;

export async function launch(t: BrowserTest): Promise<Browser> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-quic', '--no-first-run',
      '--disable-component-update', '--disable-sync'],
  });
  t.teardown(() => browser.close());
  return withoutInternet(t, browser);
}

const LOOPBACK_HOST = /^(127(\.\d{1,3}){3}|localhost|\[::1\])$/;
const offLoopback = (url: URL): boolean => /^(https?|wss?):$/.test(url.protocol) && !LOOPBACK_HOST.test(url.hostname);
const guarded = new WeakSet<BrowserContext>();

/** Refuses (and fails the test for) every request and WebSocket a page of `context` opens to anything off loopback. */
async function refuseOffLoopback(t: BrowserTest, context: BrowserContext): Promise<void> {
  if (guarded.has(context)) return;
  guarded.add(context);
  const refuse = (url: string) => t.fail(`a page asked for ${url}: off loopback, unreachable on a network without the Internet`);
  await context.route(offLoopback, (route) => { refuse(route.request().url()); return route.abort('internetdisconnected'); });
  await context.routeWebSocket(offLoopback, (ws) => { refuse(ws.url()); return ws.close(); });
}

/**
 * Every page of `browser` runs as on a site without the Internet (where many contact centres run): anything a page
 * asks for off loopback is refused and fails the test, naming it. Tests make their pages with browser.newPage and
 * browser.newContext, so those two are what is wrapped: no test can forget the guard.
 */
export function withoutInternet(t: BrowserTest, browser: Browser): Browser {
  const newContext = browser.newContext.bind(browser);
  const newPage = browser.newPage.bind(browser);
  browser.newContext = async (options) => {
    const context = await newContext(options);
    await refuseOffLoopback(t, context);
    return context;
  };
  browser.newPage = async (options) => {
    const page = await newPage(options);
    await refuseOffLoopback(t, page.context());
    return page;
  };
  return browser;
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: path.join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/**
 * How far the page is wider than the screen, in px, once its stylesheet is in force. A click that submits a form
 * returns when the next page is committed, before its stylesheet has loaded: measured then (a loaded CI run), a
 * new secret in a plain <pre> overflowed a 390 px screen by 53 px that the stylesheet wraps.
 */
export async function horizontalOverflow(page: Page): Promise<number> {
  await page.waitForLoadState('load');
  return page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
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
