// The event outbox's repositories over one test database (either backend), an account with its subscriptions, and
// more connection pools to one PostgreSQL database for tests where several workers claim at once.
import { randomBytes } from 'node:crypto';
import type { Test } from 'tap';
import { FakeClock, type Clock } from '../../../src/clock.js';
import { createSecretBox } from '../../../src/crypto/secret-box.js';
import type { EventType } from '../../../src/events/lifecycle.js';
import { OutboxStore } from '../../../src/events/outbox-store.js';
import { SubscriptionRepo, type Subscription } from '../../../src/events/subscriptions.js';
import { OrgSettingsRepo } from '../../../src/org/settings.js';
import { AccountRepo } from '../../../src/store/accounts.js';
import { PostgresDb } from '../../../src/store/postgres-db.js';
import type { SqlDb } from '../../../src/store/sql.js';
import { cacheInvalidationFor } from '../../helpers/caches.js';

export const CALL_DATA = { from: '+15550100001', to: '+15550100002', direction: 'inbound' };

export async function outboxWorld(t: Test, db: SqlDb, clock: Clock = new FakeClock(Date.parse('2026-11-25T12:00:00Z'))) {
  const caches = await cacheInvalidationFor(t, db);
  const accounts = new AccountRepo(db, clock, caches);
  const orgSettings = new OrgSettingsRepo(db, clock, caches);
  const subscriptions = new SubscriptionRepo(db, clock);
  const secrets = createSecretBox(randomBytes(32));
  const account = await accounts.create({ name: 'a', trunking: false, trunkCapacity: 1 });
  const subscribe = (eventType: EventType, targetUrl = `https://hooks.example.com/${eventType}`, extra: Partial<Pick<Subscription, 'timeoutMs' | 'maxRetries' | 'deliveryMode'>> = {}) =>
    subscriptions.create({
      accountId: account.id, eventType, targetUrl, deliveryMode: 'async', timeoutMs: 5000, maxRetries: 5,
      secretSealed: secrets.seal('whsec_x'), payloadTemplate: null, ...extra,
    });
  return { clock, accounts, orgSettings, subscriptions, outbox: new OutboxStore(db, clock), secrets, account, subscribe, caches };
}

/**
 * `n` more connection pools to the PostgreSQL database of `db`, as other control planes would hold them; closed at
 * the test's teardown. (SQLite's equivalent is several processes: in one process, two connections with
 * transactions open at once would wait on each other's write lock synchronously, blocking the one thread.)
 */
export function peerPools(t: Test, db: PostgresDb, n: number): PostgresDb[] {
  const url = (db.pool.options as { connectionString: string }).connectionString;
  const peers = Array.from({ length: n }, () => new PostgresDb({ url, poolSize: 3 }));
  t.teardown(async () => { for (const p of peers) await p.close(); });
  return peers;
}
