// A subscription saved against an allowed name that later resolves to a private address (DNS rebinding) is
// refused when the worker connects, not just when the URL was checked.
import t from 'tap';
import pino from 'pino';
import { systemClock } from '../../src/clock.js';
import { createGuardedClient } from '../../src/net/index.js';
import { DeliveryWorker, type AttemptOutcome } from '../../src/events/delivery-worker.js';
import { onEachBackend } from '../helpers/backends.js';
import { outboxWorld } from './support/outbox-world.js';

onEachBackend(t, 'delivery to a name resolving to a private address is refused at connect time', async (t, db) => {
  const clock = systemClock();
  const { account, orgSettings, secrets, outbox, subscribe } = await outboxWorld(t, db, clock);
  await orgSettings.allowHost(account.id, 'example.com');
  const answers: Record<string, string> = { 'hooks.example.com': '10.0.0.5', 'meta.example.com': '169.254.169.254', 'six.example.com': '::ffff:127.0.0.1' };
  const client = createGuardedClient({
    requireHttps: true, allowLoopback: false,
    lookup: async (name) => [{ address: answers[name] ?? '93.184.215.14', family: (answers[name] ?? '').includes(':') ? 6 : 4 }],
  });
  const worker = new DeliveryWorker({ outbox, orgSettings, client, clock, secrets, log: pino({ level: 'silent' }) });
  t.teardown(async () => { await worker.stop(); await client.close(); });
  worker.start();
  for (const [host, type] of [['hooks.example.com', 'hangup'], ['meta.example.com', 'queued'], ['six.example.com', 'abandoned']] as const) {
    await subscribe(type, `https://${host}/hook`, { timeoutMs: 2000, maxRetries: 0 });
    const outcome = new Promise<AttemptOutcome>((resolve) => { const off = worker.onAttempt((o) => { off(); resolve(o); }); });
    await outbox.enqueue({ type, accountId: account.id, callSid: null, data: {} });
    worker.wake();
    const o = await outcome;
    t.match(o, { status: 'exhausted', record: { statusCode: null, error: /^target_refused: .*(private|metadata|loopback)/ } }, host);
  }
});
