// Shared steps for the call-flow suite: an account with a number pointed at a webhook app, and ways to wait.
import type { EngineDriver } from './driver.js';
import { startWebhookApp, type WebhookApp } from '../helpers/webhook-app.js';
import { NumberService } from '../../src/numbers/service.js';
import type { NumberSettings } from '../../src/numbers/settings.js';
import type { CallRecord } from '../../src/store/calls.js';

/** Polls the store on the event loop until the call is final: a placed call runs in the background. */
export async function final(d: EngineDriver, sid: string): Promise<CallRecord> {
  for (;;) {
    const c = (await d.h.store.calls.get(sid))!;
    if (c.endedAt) return c;
    await new Promise((r) => setImmediate(r));
    await d.h.app.calls.settled();
  }
}

/** A trunk created through the API and provisioned on the engine: its id, endpoint name and SIP credentials. */
export async function makeTrunk(d: EngineDriver, settings: Record<string, unknown>) {
  const created = await d.h.request('POST', '/api/partner/trunks', { body: settings });
  await d.h.app.trunks.settled();
  const { id, endpoint_name: endpointName, connection } = created.body as { id: number; endpoint_name: string; connection: { username: string; password: string } };
  return { id, endpointName, username: connection.username, password: connection.password };
}

/** The newest call that came in over a trunk. */
export const lastTrunkCall = async (d: EngineDriver): Promise<string> =>
  (await d.h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE direction = 'trunk' ORDER BY created_at DESC, sid DESC LIMIT 1"))!.sid;

export const DID = '+15550001000';
export const CALLER = '+15557770001';

export interface Scene {
  app: WebhookApp;
  accountId: number;
  /** The sid of the account's newest call (not a dialled leg), as it is now; null before the first. */
  newestCall(): Promise<string | null>;
  /** Waits until the platform has written the call's final state, and returns it. */
  finalCall(): Promise<CallRecord>;
}

export async function scene(t: { teardown(fn: () => unknown): void }, d: EngineDriver, settings: Partial<NumberSettings> = {}): Promise<Scene> {
  const app = await startWebhookApp(t);
  const { id } = await d.h.account();
  await new NumberService(d.h.store.numbers, { allowLocalTargets: true }).add(DID, id, { webhook_url: `${app.url}/voice`, ...settings });
  const newestCall = async () => (await d.h.store.sql.one<{ sid: string }>(
    'SELECT sid FROM calls WHERE account_id = ? AND parent_sid IS NULL ORDER BY created_at DESC, sid DESC LIMIT 1', [id]))?.sid ?? null;
  return {
    app, accountId: id, newestCall,
    async finalCall() {
      await d.h.app.calls.settled();
      return (await d.h.store.calls.get((await newestCall())!))!;
    },
  };
}

export const alwaysClosed = { schedule: { timezone: 'UTC', weekly: {} } };
