// The delivery worker's slots: a slow receiver holds at most its subscription's share of them, the others go
// on meanwhile, and a finished request's slot is refilled from deliveries claimed ahead, without waiting for a
// transaction; claims that waited too long, or that a stopping worker holds, are handed back unattempted.
import t from 'tap';
import pino from 'pino';
import { FakeClock, systemClock } from '../../src/clock.js';
import { DeliveryWorker, type AttemptOutcome } from '../../src/events/delivery-worker.js';
import { OutboxStore, type ClaimedDelivery } from '../../src/events/outbox-store.js';
import type { GuardedClient, OutboundResponse } from '../../src/net/index.js';
import { onEachBackend } from '../helpers/backends.js';
import { outboxWorld } from './support/outbox-world.js';
import { until } from '../helpers/waits.js';

const ok: OutboundResponse = { status: 204, headers: {}, body: Buffer.alloc(0), latencyMs: 1, remoteAddress: '127.0.0.1' };

/** The outbox with every look (settle) recorded by the ids it claimed, and held while `gate` is pending. */
class WatchedOutbox extends OutboxStore {
  gate: Promise<void> | null = null;
  readonly claims: number[][] = [];

  override async settle(...args: Parameters<OutboxStore['settle']>): Promise<ClaimedDelivery[]> {
    if (this.gate) await this.gate;
    const claimed = await super.settle(...args);
    this.claims.push(claimed.map((c) => c.id));
    return claimed;
  }
}

/** A client whose first request waits for `releaseFirst`; counts requests per call sid, and the most at once. */
function heldFirstClient() {
  let releaseFirst!: () => void;
  const firstHeld = new Promise<void>((resolve) => { releaseFirst = resolve; });
  const bySid = new Map<string, number>();
  let requests = 0;
  let inFlight = 0;
  let most = 0;
  const client: GuardedClient = {
    async request(_url, init) {
      const sid = (JSON.parse(String(init?.body)) as { call_sid: string }).call_sid;
      bySid.set(sid, (bySid.get(sid) ?? 0) + 1);
      most = Math.max(most, ++inFlight);
      if (++requests === 1) await firstHeld;
      inFlight--;
      return ok;
    },
    async close() {},
  };
  return { client, bySid, releaseFirst: () => releaseFirst(), requests: () => requests, most: () => most };
}

onEachBackend(t, 'a slow subscription holds at most perSubscription slots; another subscription is delivered meanwhile', async (t, db) => {
  const clock = systemClock();
  const { account, orgSettings, secrets, outbox, subscribe } = await outboxWorld(t, db, clock);
  await orgSettings.allowHost(account.id, 'slow.example');
  await orgSettings.allowHost(account.id, 'fast.example');
  await subscribe('call-start', 'https://slow.example/hook');
  const fast = await subscribe('hangup', 'https://fast.example/hook');

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
  const worker = new DeliveryWorker({
    outbox, orgSettings, client, clock, secrets, log: pino({ level: 'silent' }), concurrency: 4, perSubscription: 2,
  });
  const outcomes: AttemptOutcome[] = [];
  worker.onAttempt((o) => outcomes.push(o));
  const data = { from: '+15550100001', to: '+15550100002', direction: 'inbound' };
  for (let i = 0; i < 6; i++) await outbox.enqueue({ type: 'call-start', accountId: account.id, callSid: `CAs${i}`, data });
  for (let i = 0; i < 6; i++) await outbox.enqueue({ type: 'hangup', accountId: account.id, callSid: `CAf${i}`, data: { ...data, duration: 1 } });

  const after = (n: number) => new Promise<void>((resolve) => {
    const off = worker.onAttempt(() => { if (outcomes.length === n) { off(); resolve(); } });
  });
  const fastDone = after(6);
  worker.start();
  await fastDone;
  // What each attempt was, should one not be as expected: a failure under load once named no cause.
  const seen = () => outcomes.map((o) => `${o.subscriptionSid === fast.sid ? 'fast' : 'slow'} ${o.status}${o.record.error ? ` (${o.record.error})` : ''}`).join(', ');
  t.ok(outcomes.every((o) => o.subscriptionSid === fast.sid), `the six fast deliveries went through while the slow receiver held its two: ${seen()}`);
  t.equal(slowInFlight, 2, 'the slow receiver holds two');
  t.equal(slowMost, 2, 'never more than perSubscription to the slow receiver');

  // Released, the slow receiver's remaining four go through, still two at a time.
  const allDone = after(12);
  released = true;
  for (const resolve of held.splice(0)) resolve();
  await allDone;
  t.equal(slowMost, 2);
  t.ok(outcomes.every((o) => o.status === 'delivered'), seen());
  const logged = await db.one<{ n: number }>('SELECT count(*) AS n FROM webhook_delivery_attempts');
  t.equal(logged!.n, 12, 'every attempt was logged before it was announced');
  await worker.stop();
});

onEachBackend(t, "a finished request's slot is refilled at once from the claimed deliveries, before its attempt is logged", async (t, db) => {
  const clock = systemClock();
  const { account, orgSettings, secrets, outbox, subscribe } = await outboxWorld(t, db, clock);
  await orgSettings.allowHost(account.id, 'one.example');
  await subscribe('call-start', 'https://one.example/hook');
  const held = heldFirstClient();
  // Looks at the outbox (the transactions that log attempts and claim) held back from a point on: the second
  // delivery must start without one. (Claimed only as slots freed, it waited for the look that logged the first
  // attempt: one receiver's rate was bounded by a transaction per request.)
  const watched = new WatchedOutbox(db, clock);
  let resumeLooks!: () => void;
  const worker = new DeliveryWorker({
    outbox: watched, orgSettings, client: held.client, clock, secrets, log: pino({ level: 'silent' }), concurrency: 4, perSubscription: 1,
  });
  const data = { from: '+15550100001', to: '+15550100002', direction: 'inbound' };
  await outbox.enqueue({ type: 'call-start', accountId: account.id, callSid: 'CA1', data });
  await outbox.enqueue({ type: 'call-start', accountId: account.id, callSid: 'CA2', data });
  const delivered = new Promise<void>((resolve) => {
    let n = 0;
    worker.onAttempt(() => { if (++n === 2) resolve(); });
  });
  const logged = async () => (await db.one<{ n: number }>('SELECT count(*) AS n FROM webhook_delivery_attempts'))!.n;
  worker.start();
  await until('the first request in flight', 5_000, () => held.requests() === 1);
  watched.gate = new Promise<void>((resolve) => { resumeLooks = resolve; });
  held.releaseFirst();
  await until('the second request started', 5_000, () => held.requests() === 2);
  t.equal(await logged(), 0, 'started before the first attempt was logged');
  resumeLooks();
  await delivered;
  t.same([...held.bySid.values()], [1, 1], 'one request per delivery');
  t.equal(held.most(), 1, 'never two at once (perSubscription 1)');
  t.equal(await logged(), 2, 'both attempts logged');
  await worker.stop();
});

onEachBackend(t, 'a claim that waited too long for a slot is handed back and claimed afresh; a stopping worker hands back its claims', async (t, db) => {
  const clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'));
  const { account, orgSettings, secrets, outbox, subscribe } = await outboxWorld(t, db, clock);
  await orgSettings.allowHost(account.id, 'one.example');
  await subscribe('call-start', 'https://one.example/hook', { timeoutMs: 1000 });
  const held = heldFirstClient();
  const watched = new WatchedOutbox(db, clock);
  const worker = new DeliveryWorker({
    outbox: watched, orgSettings, client: held.client, clock, secrets, log: pino({ level: 'silent' }), concurrency: 4, perSubscription: 1,
  });
  const data = { from: '+15550100001', to: '+15550100002', direction: 'inbound' };
  for (const sid of ['CA1', 'CA2']) await outbox.enqueue({ type: 'call-start', accountId: account.id, callSid: sid, data });
  const leases = () => db.all<{ claimed_until: number | null }>("SELECT claimed_until FROM webhook_deliveries WHERE status = 'pending' ORDER BY id");
  const outcomes: AttemptOutcome[] = [];
  worker.onAttempt((o) => outcomes.push(o));
  worker.start();
  await until('the first request in flight, the second claimed', 5_000, async () => held.requests() === 1 && (await leases()).every((l) => l.claimed_until !== null));
  // The first request outlasts how long a claim is kept: the second, still unstarted, is not attempted on its old lease.
  await clock.advance(600);
  held.releaseFirst();
  await until('both delivered', 5_000, () => outcomes.length === 2);
  t.same([...held.bySid.values()], [1, 1], 'each delivery requested once');
  const second = outcomes[1]!.deliveryId;
  t.equal(watched.claims.flat().filter((id) => id === second).length, 2, 'the second was claimed again after its first claim went stale');
  await worker.stop();

  // Stopped with claims not started: they go back at once, for any worker, rather than when their leases run out.
  const again = heldFirstClient();
  const stopped = new DeliveryWorker({
    outbox, orgSettings, client: again.client, clock, secrets, log: pino({ level: 'silent' }), concurrency: 4, perSubscription: 1,
  });
  for (const sid of ['CA3', 'CA4', 'CA5']) await outbox.enqueue({ type: 'call-start', accountId: account.id, callSid: sid, data });
  stopped.start();
  await until('the first request in flight, another claimed', 5_000, async () => again.requests() === 1 && (await leases()).filter((l) => l.claimed_until !== null).length === 2);
  const stopping = stopped.stop();
  again.releaseFirst();
  await stopping;
  t.equal(again.requests(), 1, 'nothing started after stop');
  t.same((await leases()).map((l) => l.claimed_until), [null, null], 'the two not delivered are free to claim');
});
