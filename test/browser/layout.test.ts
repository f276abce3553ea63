// Every dashboard page at 1280 and 390 px in Chromium: nothing wider than the screen (scrollWidth measured), the
// navigation on every page, and a page that does not exist keeps the layout (navigation, a way back). The
// operator's sign-in, cluster and carriers pages too.
import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { accountWithUser } from '../dashboard/client.js';
import { NumberService } from '../../src/numbers/service.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../src/acd/queues.js';
import { SKIP, horizontalOverflow, launch, signIn } from './chromium.js';
import { operatorToken } from '../../src/operator-token.js';
import { carrierAtAddress } from '../../src/store/carriers.js';

const NUMBER = '+14155550100';

t.test('every page fits 1280 and 390 px and keeps the navigation; the 404 page too', { skip: SKIP }, async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'owner@example.com');
  await new NumberService(h.store.numbers, { allowLocalTargets: false }).add(NUMBER, a.id, { webhook_url: 'https://app.example.com/voice-webhook-with-a-rather-long-path/for/layout' });
  const trunk = (await h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'wss', label: 'A seat with a long label for the layout check' } })).body as { id: number };
  const queue = await h.store.queues.create(a.id, 'QU00000000000000000000000000000001', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'A queue with a rather long name for the layout' });
  const agent = await h.store.agents.create(a.id, 'AG00000000000000000000000000000001', {
    friendlyName: 'An agent with a long name for the layout', trunkId: trunk.id, queueIds: [queue.id], status: 'available', breakReason: null,
  });
  await h.store.carriers.add('a-carrier-with-a-long-name-for-the-layout', {
    ...carrierAtAddress('203.0.113.10', 5060, '+44'), sources: [{ network: '2001:db8:1234:5678::/64', port: 5060 }],
    gateways: [{ host: 'sip-gateway-one.a-long-carrier-domain.example', port: 5061, transport: 'tls', priority: 0, weight: 1 }],
  });
  const sid = 'CA00000000000000000000000000000001';
  await h.store.calls.create({ sid, accountId: a.id, direction: 'inbound', from: '+15557770001', to: NUMBER, status: 'ringing' });
  await h.store.calls.finish(sid, 'completed', 'normal');
  const pages = [
    '/dashboard', '/dashboard/numbers', `/dashboard/numbers/${encodeURIComponent(NUMBER)}`, '/dashboard/calls', `/dashboard/calls/${sid}`,
    '/dashboard/keys', '/dashboard/trunks', '/dashboard/trunks/new', `/dashboard/trunks/${trunk.id}`, `/dashboard/trunks/${trunk.id}/edit`,
    '/dashboard/conferences', '/dashboard/queues', `/dashboard/agents/${agent.sid}`, '/dashboard/subscriptions', '/dashboard/test-call', '/dashboard/settings',
  ];
  const browser = await launch(t);
  for (const width of [1280, 390]) {
    await t.test(`${width} px`, async (t) => {
      const page = await browser.newPage({ viewport: { width, height: 900 }, isMobile: width === 390 });
      t.teardown(() => page.close());
      await signIn(page, h, 'owner@example.com');
      for (const p of pages) {
        const res = await page.goto(h.url + p);
        t.equal(res?.status(), 200, `${p} answers`);
        const overflow = await horizontalOverflow(page);
        t.ok(overflow <= 1, `${p} fits ${width} px (overflow ${overflow} px)`);
        t.equal(await page.locator('nav a[href="/dashboard/numbers"]').count(), 1, `${p} has the navigation`);
      }
      const missing = await page.goto(`${h.url}/dashboard/no-such-page`);
      t.equal(missing?.status(), 404);
      t.equal(await page.locator('nav a[href="/dashboard/numbers"]').count(), 1, 'the 404 page keeps the navigation');
      t.match(await page.locator('main').textContent(), /not found|does not exist/i, 'and says what happened');
      const overflow = await horizontalOverflow(page);
      t.ok(overflow <= 1, `the 404 page fits ${width} px`);

      // The operator's pages: a sign-in of their own, then the cluster's nodes.
      await page.goto(`${h.url}/dashboard/operator`);
      t.ok(await horizontalOverflow(page) <= 1, `the operator sign-in fits ${width} px`);
      await page.focus('#f-token');
      await page.keyboard.type(operatorToken(h.dataDir, false)!);
      await page.keyboard.press('Enter');
      await page.waitForURL(/\/dashboard\/operator\/cluster$/);
      t.equal(await page.locator(`tr[data-node="${h.store.instanceId}"]`).count(), 1, 'the cluster page lists this node');
      t.ok(await horizontalOverflow(page) <= 1, `the cluster page fits ${width} px`);
      await page.goto(`${h.url}/dashboard/operator/carriers`);
      t.equal(await page.locator('tr[data-carrier="a-carrier-with-a-long-name-for-the-layout"]').count(), 1, 'the carriers page lists the carrier');
      t.ok(await horizontalOverflow(page) <= 1, `the carriers page fits ${width} px (overflow ${await horizontalOverflow(page)} px)`);
    });
  }
});
