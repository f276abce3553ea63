// The delivery worker's slots: a slow receiver holds at most its subscription's share of them, the others go
// on meanwhile, and attempts that finish together are logged together with the claims that refill the slots.
import t from 'tap';
import { randomBytes } from 'node:crypto';
import pino from 'pino';
import { systemClock } from '../../src/clock.js';
import { openStore } from '../../src/store/index.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { OutboxStore } from '../../src/events/outbox-store.js';
import { DeliveryWorker, type AttemptOutcome } from '../../src/events/delivery-worker.js';
import type { GuardedClient, OutboundResponse } from '../../src/net/index.js';
import { tempDir } from '../helpers/harness.js';

const ok: OutboundResponse = { status: 204, headers: {}, body: Buffer.alloc(0), latencyMs: 1, remoteAddress: '127.0.0.1' };

t.test('a slow subscription holds at most perSubscription slots; another subscription is delivered meanwhile', async (t) => {
  const clock = systemClock();
  const store = openStore(tempDir(t), clock);
  t.teardown(() => store.close());
  const secrets = createSecretBox(randomBytes(32));
  const account = await store.accounts.create({ name: 'a', trunking: false, trunkCapacity: 1 });
  await store.orgSettings.allowHost(account.id, 'slow.example');
  await store.orgSettings.allowHost(account.id, 'fast.example');
  const subscribe = (eventType: 'call-start' | 'hangup', host: string) => store.webhookSubscriptions.create({
    accountId: account.id, eventType, targetUrl: `https://${host}/hook`, deliveryMode: 'async',
    timeoutMs: 5000, maxRetries: 5, secretSealed: secrets.seal('whsec_x'), payloadTemplate: null,
  });
  subscribe('call-start', 'slow.example');
  const fast = subscribe('hangup', 'fast.example');

  const held: Array<() => void> = [];
  let released = false;
  let slowInFlight = 0;
  let slowMost = 0;
  const client: GuardedClient = {
    async request(url) {
      if (!url.includes('slow')) return ok;
      slowMost = Math.max(slowMost, ++slowInFlight);
      if (!released) await new Promise<void>((resolve) => held.push(resolve));
      slowInFlight--;
      return ok;
    },
    async close() {},
  };
  const outbox = new OutboxStore(store.db, clock);
  const worker = new DeliveryWorker({
    outbox, orgSettings: store.orgSettings, client, clock, secrets, log: pino({ level: 'silent' }), concurrency: 4, perSubscription: 2,
  });
  const outcomes: AttemptOutcome[] = [];
  worker.onAttempt((o) => outcomes.push(o));
  const data = { from: '+15550100001', to: '+15550100002', direction: 'inbound' };
  for (let i = 0; i < 6; i++) outbox.enqueue({ type: 'call-start', accountId: account.id, callSid: `CAs${i}`, data });
  for (let i = 0; i < 6; i++) outbox.enqueue({ type: 'hangup', accountId: account.id, callSid: `CAf${i}`, data: { ...data, duration: 1 } });

  const after = (n: number) => new Promise<void>((resolve) => {
    const off = worker.onAttempt(() => { if (outcomes.length === n) { off(); resolve(); } });
  });
  const fastDone = after(6);
  worker.start();
  await fastDone;
  t.ok(outcomes.every((o) => o.subscriptionSid === fast.sid), 'the six fast deliveries went through while the slow receiver held its two');
  t.equal(slowInFlight, 2, 'the slow receiver holds two');
  t.equal(slowMost, 2, 'never more than perSubscription to the slow receiver');

  // Released, the slow receiver's remaining four go through, still two at a time.
  const allDone = after(12);
  released = true;
  for (const resolve of held.splice(0)) resolve();
  await allDone;
  t.equal(slowMost, 2);
  t.ok(outcomes.every((o) => o.status === 'delivered'));
  const logged = store.db.prepare('SELECT count(*) AS n FROM webhook_delivery_attempts').get() as { n: number };
  t.equal(logged.n, 12, 'every attempt was logged before it was announced');
  await worker.stop();
});
