// Several delivery workers, each on its own connection pool to one PostgreSQL database (as several control planes
// would be), claim the outbox at once while events keep arriving: every delivery is attempted exactly once (each
// row is claimed by one worker, FOR UPDATE SKIP LOCKED), none is lost, every attempt is logged. (On SQLite several
// workers are several processes, whose claims the one writer serialises: test/events/durability.test.ts.)
import t from 'tap';
import pino from 'pino';
import { systemClock } from '../../src/clock.js';
import { DeliveryWorker } from '../../src/events/delivery-worker.js';
import { OutboxStore } from '../../src/events/outbox-store.js';
import type { GuardedClient, OutboundResponse } from '../../src/net/index.js';
import type { PostgresDb } from '../../src/store/postgres-db.js';
import { freshDatabase } from '../helpers/backends.js';
import { until } from '../helpers/waits.js';
import { CALL_DATA, outboxWorld, peerPools } from './support/outbox-world.js';

const WORKERS = 3;
const EVENTS = 240;
const TYPES = ['call-start', 'hangup', 'queued'] as const;
const ok: OutboundResponse = { status: 204, headers: {}, body: Buffer.alloc(0), latencyMs: 1, remoteAddress: '127.0.0.1' };

t.test(`${WORKERS} workers on separate PostgreSQL pools: each delivery attempted once, none lost`, async (t) => {
  const db = await freshDatabase(t, 'postgres') as PostgresDb | null;
  if (!db) return;
  const clock = systemClock();
  const w = await outboxWorld(t, db, clock);
  for (const type of TYPES) await w.subscribe(type);
  /** Attempts per delivery (event sid + subscription), and by which worker. */
  const attempts = new Map<string, number>();
  const byWorker = new Array<number>(WORKERS).fill(0);
  const clientOf = (n: number): GuardedClient => ({
    async request(url, init) {
      const body = JSON.parse(String(init?.body)) as { event_sid: string; subscription_sid: string };
      const key = `${body.event_sid}/${body.subscription_sid}`;
      attempts.set(key, (attempts.get(key) ?? 0) + 1);
      byWorker[n]!++;
      // A short, uneven wait, so the workers' claims interleave with attempts in flight.
      await new Promise((r) => setTimeout(r, Math.random() * 4));
      return ok;
    },
    async close() {},
  });
  const workers = peerPools(t, db, WORKERS).map((peer, n) => new DeliveryWorker({
    outbox: new OutboxStore(peer, clock), orgSettings: w.orgSettings, client: clientOf(n), clock, secrets: w.secrets,
    log: pino({ level: 'silent' }), concurrency: 8, pollMs: 10,
  }));
  t.teardown(() => Promise.all(workers.map((x) => x.stop())));
  for (const worker of workers) worker.start();

  // Queued while the workers claim: in bursts, some in transactions of several events.
  for (let i = 0; i < EVENTS; i += 4) {
    await db.transaction(async (tx) => {
      for (let j = i; j < i + 4; j++) await w.outbox.enqueue({ type: TYPES[j % TYPES.length]!, accountId: w.account.id, callSid: `CA${j}`, data: CALL_DATA }, tx);
    });
    if (i % 40 === 0) await new Promise((r) => setTimeout(r, 5));
  }
  let delivered = 0;
  await until(() => `all ${EVENTS} delivered (${delivered} so far)`, 30_000, async () => {
    delivered = (await db.one<{ n: number }>("SELECT COUNT(*) AS n FROM webhook_deliveries WHERE status = 'delivered'"))!.n;
    return delivered === EVENTS;
  }, 20);

  t.equal(attempts.size, EVENTS, 'every delivery attempted');
  t.same([...attempts.values()].filter((n) => n !== 1), [], 'none attempted twice');
  t.equal((await db.one<{ n: number }>('SELECT COUNT(*) AS n FROM webhook_delivery_attempts'))!.n, EVENTS, 'every attempt logged once');
  t.same(await db.all("SELECT id FROM webhook_deliveries WHERE status <> 'delivered'"), [], 'nothing left pending');
  t.ok(byWorker.filter((n) => n > 0).length >= 2, `the work was shared (${byWorker.join(', ')} attempts per worker)`);
});
