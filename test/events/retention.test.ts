import t from 'tap';
import pino from 'pino';
import { FakeClock } from '../../src/clock.js';
import { openStore } from '../../src/store/index.js';
import { OutboxStore } from '../../src/events/outbox-store.js';
import { OutboxRetention } from '../../src/events/retention.js';
import { tempDir } from '../helpers/harness.js';

const DAY = 86_400_000;

t.test('finished webhook history is pruned after the retention period; pending deliveries never are', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const store = openStore(tempDir(t), clock);
  t.teardown(() => store.close());
  const account = await store.accounts.create({ name: 'a', trunking: false, trunkCapacity: 1 });
  store.webhookSubscriptions.create({
    accountId: account.id, eventType: 'hangup', targetUrl: 'https://hooks.example.com/x', deliveryMode: 'async',
    timeoutMs: 5000, maxRetries: 5, secretSealed: 'sealed', payloadTemplate: null,
  });
  const outbox = new OutboxStore(store.db, clock);
  const emit = () => outbox.enqueue({ type: 'hangup', accountId: account.id, callSid: 'CA1', data: {} })!.deliveries[0]!.id;
  const attempt = { attempt: 1, startedAt: new Date(clock.now()).toISOString(), statusCode: 200, latencyMs: 5, error: null };
  const delivered = emit();
  outbox.finishAttempt(delivered, attempt, { status: 'delivered', nextAttemptAt: null });
  const exhausted = emit();
  outbox.finishAttempt(exhausted, { ...attempt, statusCode: 500 }, { status: 'exhausted', nextAttemptAt: null });
  const pending = emit();

  const retention = new OutboxRetention(outbox, clock, pino({ level: 'silent' }), 30);
  await clock.advance(29 * DAY);
  t.same(retention.prune(), { deliveries: 0, events: 0 }, 'nothing is pruned inside the period');
  await clock.advance(2 * DAY);
  t.same(retention.prune(), { deliveries: 2, events: 2 }, 'delivered and exhausted history goes');
  const left = store.db.prepare('SELECT id, status FROM webhook_deliveries').all();
  t.same(left, [{ id: pending, status: 'pending' }], 'the pending delivery and its event stay');
  t.equal((store.db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n, 1);
  t.equal((store.db.prepare('SELECT count(*) AS n FROM webhook_delivery_attempts').get() as { n: number }).n, 0, 'attempts go with their delivery');
  t.ok(delivered && exhausted);
});
