// Wires the event system for the server: outbox, delivery workers and their own guarded HTTP client.
// The CLI never builds this, so delivery workers only run inside the server process.
import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { SqlDb } from '../store/sql.js';
import type { OrgSettingsRepo } from '../org/settings.js';
import { createGuardedClient } from '../net/index.js';
import { OutboxStore } from './outbox-store.js';
import { DeliveryWorker } from './delivery-worker.js';
import { DurableEvents, type EventOutbox } from './outbox.js';
import { OutboxRetention } from './retention.js';
import { sealLegacyHeaders } from './subscription-headers.js';

export interface EventSystem {
  events: EventOutbox;
  outbox: OutboxStore;
  worker: DeliveryWorker;
  close(): Promise<void>;
}

export async function createEventSystem(deps: {
  store: { sql: SqlDb; orgSettings: OrgSettingsRepo }; clock: Clock; secrets: SecretBox; log: Logger; allowLocalTargets: boolean; random?: () => number;
}): Promise<EventSystem> {
  const { store, clock, secrets, log } = deps;
  // Before any delivery or request can read a subscription (see sealLegacyHeaders).
  const sealed = await sealLegacyHeaders(store.sql, secrets);
  if (sealed > 0) log.info({ subscriptions: sealed }, 'sealed custom webhook header values stored in clear by an earlier version');
  const outbox = new OutboxStore(store.sql, clock);
  // Subscriptions must be https; the development loopback exemption is the only way around it.
  const client = createGuardedClient({ allowLoopback: deps.allowLocalTargets, requireHttps: true });
  const worker = new DeliveryWorker({
    outbox, orgSettings: store.orgSettings, client, clock, secrets, log, ...(deps.random ? { random: deps.random } : {}),
  });
  worker.start();
  const retention = new OutboxRetention(outbox, clock, log);
  retention.start();
  return {
    events: new DurableEvents(outbox, worker, clock),
    outbox,
    worker,
    async close() {
      await retention.stop();
      await worker.stop();
      await client.close();
    },
  };
}
