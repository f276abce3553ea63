import t from 'tap';
import pino from 'pino';
import { FakeClock } from '../../src/clock.js';
import { OutboxRetention } from '../../src/events/retention.js';
import { onEachBackend } from '../helpers/backends.js';
import { outboxWorld } from './support/outbox-world.js';

const DAY = 86_400_000;

onEachBackend(t, 'finished webhook history is pruned after the retention period; pending deliveries never are', async (t, db) => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  const { account, outbox, subscribe } = await outboxWorld(t, db, clock);
  await subscribe('hangup');
  const emit = async () => (await outbox.enqueue({ type: 'hangup', accountId: account.id, callSid: 'CA1', data: {} }))!.deliveries[0]!.id;
  const attempt = { attempt: 1, startedAt: new Date(clock.now()).toISOString(), statusCode: 200, latencyMs: 5, error: null };
  const delivered = await emit();
  await outbox.finishAttempt(delivered, attempt, { status: 'delivered', nextAttemptAt: null });
  const exhausted = await emit();
  await outbox.finishAttempt(exhausted, { ...attempt, statusCode: 500 }, { status: 'exhausted', nextAttemptAt: null });
  const pending = await emit();

  const retention = new OutboxRetention(outbox, clock, pino({ level: 'silent' }), 30);
  await clock.advance(29 * DAY);
  t.same(await retention.prune(), { deliveries: 0, events: 0 }, 'nothing is pruned inside the period');
  await clock.advance(2 * DAY);
  t.same(await retention.prune(), { deliveries: 2, events: 2 }, 'delivered and exhausted history goes');
  const left = await db.all('SELECT id, status FROM webhook_deliveries');
  t.same(left, [{ id: pending, status: 'pending' }], 'the pending delivery and its event stay');
  t.equal((await db.one<{ n: number }>('SELECT count(*) AS n FROM events'))!.n, 1);
  t.equal((await db.one<{ n: number }>('SELECT count(*) AS n FROM webhook_delivery_attempts'))!.n, 0, 'attempts go with their delivery');
  t.ok(delivered && exhausted);
});
