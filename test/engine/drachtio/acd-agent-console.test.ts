// The dashboard's agent console in Chromium against the real engines: the agent signs in, connects the softphone
// (JsSIP on the agent's wss seat), goes available; a sipp caller who keeps talking enters <Enqueue>; the console
// rings with the screen pop (caller, queue), the agent answers and hears the caller (the console's own level meter,
// fed by the received audio), hangs up, and sets the disposition in the wrap-up form, which ends the wrap-up.
// As on a site without the Internet: the file runs in a loopback-only namespace, and any request the page makes
// off loopback fails the test (JsSIP comes from the platform itself).
import { loopbackNetnsUnavailable } from '../../helpers/loopback-netns.js';
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { final, CALLER, DID } from '../../engine-suite/flows.js';
import { startWebhookApp, xml } from '../../helpers/webhook-app.js';
import { accountWithUser } from '../../dashboard/client.js';
import { NumberService } from '../../../src/numbers/service.js';
import { SKIP as NO_CHROMIUM, screenshot, signIn } from '../../browser/chromium.js';
import { launchForWebrtc } from '../../browser/webrtc-agent.js';

const bins = enginesOrSkip(t);
const unavailable = NO_CHROMIUM || loopbackNetnsUnavailable;
if (bins && unavailable) t.skip(`agent console test skipped: ${unavailable}`, () => {});
if (bins && !unavailable) {
  t.setTimeout(2 * 60_000);
  const make = realDrivers(t, bins);

  t.test('an agent takes a queued call in the dashboard console and sets its disposition', async (t) => {
    // The platform's SIP host is the harness's loopback listener: the seat's wss URL, the only wss origin the
    // console's CSP lets it connect to, is where drachtio listens. There is no STUN server here: its name does not
    // resolve, so the browser stops gathering at once (on 127.0.0.1 it would wait out STUN's retries).
    const d = await make(t, () => ({ RINGBASE_SIP_HOST: '127.0.0.1', RINGBASE_TURN_HOST: 'stun.test.example' }));
    const a = await accountWithUser(d.h, 'agent@example.com');
    const hook = await startWebhookApp(t);
    await new NumberService(d.h.store.numbers, { allowLocalTargets: true }).add(DID, a.id, { webhook_url: `${hook.url}/voice` });
    hook.on('/voice', xml('<Say>Please hold.</Say><Enqueue>support</Enqueue>'));
    const v1 = (method: string, path: string, body?: Record<string, unknown>) =>
      d.h.request(method, path, { key: a.key, ...(body ? { body } : {}), headers: { 'x-forwarded-proto': 'https' } });
    const seat = await (async () => {
      const created = await d.h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'wss' } });
      await d.h.app.trunks.settled();
      return created.body as { id: number; endpoint_name: string };
    })();
    await v1('POST', '/v1/queues', { friendly_name: 'support', wrap_up_seconds: 600 });
    const agent = (await v1('POST', '/v1/agents', { friendly_name: 'Sam', trunk_id: seat.id, queues: ['support'] })).body as { sid: string };

    const browser = await launchForWebrtc(t);
    const page = await browser.newPage();
    await signIn(page, d.h, 'agent@example.com');
    const opened = await page.goto(`${d.h.url}/dashboard/agents/${agent.sid}`);
    const csp = opened!.headers()['content-security-policy'];
    t.match(csp, `script-src 'self';`, 'the console runs only the platform\'s own scripts');
    t.match(csp, `connect-src 'self' wss://127.0.0.1:${d.engines.drachtio.wssPort};`, 'and connects only to its seat\'s wss origin');
    await page.click('#phone-connect');
    await page.waitForSelector('#softphone[data-state="registered"]', { timeout: 15_000 });
    t.ok((await d.engine.registrations(seat.endpoint_name)).length > 0, 'the softphone registered the seat');
    await page.click('button:has-text("Available")');
    await page.waitForSelector('#agent-status:has-text("available")');

    const call = await d.inbound(CALLER, DID, { speakMs: 20_000 });
    await page.waitForSelector('#softphone[data-state="ringing"]', { timeout: 15_000 });
    await page.waitForSelector('#screen-pop', { timeout: 5_000 });
    const pop = await page.locator('#screen-pop').textContent();
    t.match(pop, CALLER, 'the screen pop names the caller');
    t.match(pop, 'support', 'and the queue');
    await page.click('#phone-answer');
    await page.waitForSelector('#softphone[data-state="in-call"]', { timeout: 10_000 });
    await page.waitForFunction(() => Number(document.getElementById('softphone')!.dataset.peak ?? 0) > 0.05, undefined, { timeout: 10_000 });
    t.pass(`the agent hears the caller (peak ${await page.getAttribute('#softphone', 'data-peak')})`);
    // On a call, on a desk and on a phone: the page fits, and test/artifacts/screenshots shows it.
    for (const width of [1280, 390]) {
      await page.setViewportSize({ width, height: 900 });
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth);
      t.ok(overflow <= 1, `the console on a call fits ${width} px (overflow ${overflow} px)`);
      await screenshot(page, `agent-console-in-call-${width}`);
    }

    await page.click('#phone-hangup');
    await call.ended;
    await page.waitForSelector('#disposition-form', { timeout: 10_000 });
    await page.fill('#disposition-form input[name="disposition"]', 'resolved');
    await page.fill('#disposition-form textarea[name="notes"]', 'Reset the password.');
    await page.click('#disposition-form button[type="submit"]');
    await page.waitForSelector('#agent-activity:has-text("idle")', { timeout: 10_000 });
    const callSid = (await d.h.store.sql.one<{ call_sid: string }>('SELECT call_sid FROM acd_dispositions'))!.call_sid;
    t.match(await d.h.store.dispositions.forCall(a.id, callSid), [{ disposition: 'resolved', notes: 'Reset the password.', agentSid: agent.sid }]);
    t.equal((await final(d, callSid)).status, 'completed');
  });
}
