// Shared steps for the call-flow suite: an account with a number pointed at a webhook app, and ways to wait.
import type { EngineDriver } from './driver.js';
import { startWebhookApp, type WebhookApp } from '../helpers/webhook-app.js';
import { NumberService } from '../../src/numbers/service.js';
import type { NumberSettings } from '../../src/numbers/settings.js';
import type { CallRecord } from '../../src/store/calls.js';

/** Polls the store on the event loop until the call is final: a placed call runs in the background. */
export async function final(d: EngineDriver, sid: string): Promise<CallRecord> {
  for (;;) {
    const c = d.h.store.calls.get(sid)!;
    if (c.endedAt) return c;
    await new Promise((r) => setImmediate(r));
    await d.h.app.calls.settled();
  }
}

export const DID = '+15550001000';
export const CALLER = '+15557770001';

export interface Scene {
  app: WebhookApp;
  accountId: number;
  /** Waits until the platform has written the call's final state, and returns it. */
  finalCall(): Promise<CallRecord>;
}

export async function scene(t: { teardown(fn: () => unknown): void }, d: EngineDriver, settings: Partial<NumberSettings> = {}): Promise<Scene> {
  const app = await startWebhookApp(t);
  const { id } = d.h.account();
  new NumberService(d.h.store.numbers).add(DID, id, { webhook_url: `${app.url}/voice`, ...settings });
  return {
    app, accountId: id,
    async finalCall() {
      await d.h.app.calls.settled();
      const row = d.h.store.db.prepare('SELECT sid FROM calls WHERE account_id = ? AND parent_sid IS NULL ORDER BY rowid DESC LIMIT 1').get(id) as { sid: string };
      return d.h.store.calls.get(row.sid)!;
    },
  };
}

export const alwaysClosed = { schedule: { timezone: 'UTC', weekly: {} } };
