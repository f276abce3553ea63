// A subscription saved against an allowed name that later resolves to a private address (DNS rebinding) is
// refused when the worker connects, not just when the URL was checked.
import t from 'tap';
import pino from 'pino';
import { randomBytes } from 'node:crypto';
import { systemClock } from '../../src/clock.js';
import { openStore } from '../../src/store/index.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { createGuardedClient } from '../../src/net/index.js';
import { OutboxStore } from '../../src/events/outbox-store.js';
import { DeliveryWorker, type AttemptOutcome } from '../../src/events/delivery-worker.js';
import { tempDir } from '../helpers/harness.js';

t.test('delivery to a name resolving to a private address is refused at connect time', async (t) => {
  const clock = systemClock();
  const store = openStore(tempDir(t), clock);
  t.teardown(() => store.close());
  const secrets = createSecretBox(randomBytes(32));
  const account = await store.accounts.create({ name: 'a', trunking: false, trunkCapacity: 1 });
  await store.orgSettings.allowHost(account.id, 'example.com');
  const answers: Record<string, string> = { 'hooks.example.com': '10.0.0.5', 'meta.example.com': '169.254.169.254', 'six.example.com': '::ffff:127.0.0.1' };
  const client = createGuardedClient({
    requireHttps: true, allowLoopback: false,
    lookup: async (name) => [{ address: answers[name] ?? '93.184.215.14', family: (answers[name] ?? '').includes(':') ? 6 : 4 }],
  });
  const outbox = new OutboxStore(store.db, clock);
  const worker = new DeliveryWorker({ outbox, orgSettings: store.orgSettings, client, clock, secrets, log: pino({ level: 'silent' }) });
  t.teardown(async () => { await worker.stop(); await client.close(); });
  worker.start();
  for (const [host, type] of [['hooks.example.com', 'hangup'], ['meta.example.com', 'queued'], ['six.example.com', 'abandoned']] as const) {
    store.webhookSubscriptions.create({
      accountId: account.id, eventType: type, targetUrl: `https://${host}/hook`, deliveryMode: 'async',
      timeoutMs: 2000, maxRetries: 0, secretSealed: secrets.seal('whsec_x'), payloadTemplate: null,
    });
    const outcome = new Promise<AttemptOutcome>((resolve) => { const off = worker.onAttempt((o) => { off(); resolve(o); }); });
    store.db.transaction(() => outbox.enqueue({ type, accountId: account.id, callSid: null, data: {} }))();
    worker.wake();
    const o = await outcome;
    t.match(o, { status: 'exhausted', record: { statusCode: null, error: /^target_refused: .*(private|metadata|loopback)/ } }, host);
  }
});
