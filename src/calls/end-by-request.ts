// Ending a live call at a person's or a REST client's request (POST /api/calls/{sid}, the dashboard's Hang up): what
// may be ended how, and the call's final state once stored. The API and the dashboard word the refusals their way.
import type { CallRecord } from '../store/calls.js';
import type { CallServices } from './services.js';
import { settledWithin } from '../waits.js';

export type EndRequest = 'completed' | 'canceled';
export type EndRefusal = 'call_ended' | 'call_in_progress' | 'call_not_carried_here';

/** How long a request waits for the call's final state before answering with the call as it stands. */
const END_WAIT_MS = 5_000;

/**
 * "completed" ends the call whatever its state; "canceled" only one not yet answered. A call this process does not
 * run (a row left from a restart, before reconciliation) cannot be ended here.
 */
export async function endByRequest(services: CallServices, call: CallRecord, status: EndRequest): Promise<{ ok: true; call: CallRecord } | { ok: false; refusal: EndRefusal }> {
  if (call.endedAt) return { ok: false, refusal: 'call_ended' };
  const session = services.watch.live(call.sid);
  if (!session) return { ok: false, refusal: 'call_not_carried_here' };
  if (status === 'canceled' && (call.answeredAt || session.leg)) return { ok: false, refusal: 'call_in_progress' };
  await session.endByRequest(status === 'canceled' ? 'api-cancel' : 'api-hangup');
  const final = await settledWithin(session.finalState, END_WAIT_MS);
  return { ok: true, call: final ?? (await services.store.calls.get(call.sid))! };
}
