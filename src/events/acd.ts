// Emit points for the events whose sources (agents, dispositions, scheduled callbacks) belong to the ACD work.
// Call these; the outbox does the rest. Field meanings are in src/events/catalogue.ts and docs/events.md.
import type { SqlQueries } from '../store/sql.js';
import type { LifecycleEvents } from './lifecycle.js';

interface CallParty { accountId: number; callSid: string; from: string; to: string }

/** A disposition code was set on a call (by an agent or automatically); `tx`: the transaction that stores it. */
export function emitDisposition(
  events: LifecycleEvents, p: CallParty & { disposition: string; setBy?: string | null; notes?: string | null }, tx?: SqlQueries,
): Promise<void> {
  return events.emit({
    type: 'disposition', accountId: p.accountId, callSid: p.callSid,
    data: { from: p.from, to: p.to, disposition: p.disposition, set_by: p.setBy ?? null, notes: p.notes ?? null },
  }, tx);
}

/**
 * A scheduled callback became due. `callSid` is the call that scheduled it, when there was one. `failed`: why the
 * callback cannot be made at all (its caller ID is no longer the account's), or null when it is being dialled.
 * `tx`: the transaction that claims it.
 */
export function emitCallbackDue(
  events: LifecycleEvents,
  p: { accountId: number; callSid?: string | null; callbackSid: string; phone: string; dueAt: Date; campaign?: string | null; failed?: string | null },
  tx?: SqlQueries,
): Promise<void> {
  return events.emit({
    type: 'callback', accountId: p.accountId, callSid: p.callSid ?? null,
    data: {
      callback_sid: p.callbackSid, phone: p.phone, due_at: p.dueAt.toISOString(), campaign: p.campaign ?? null,
      status: p.failed ? 'failed' : 'dialing', reason: p.failed ?? null,
    },
  }, tx);
}

export interface QueueMoment extends CallParty { queue: string; queueSid: string; waitSeconds: number; position: number }

/** queued, abandoned and no-agent share one shape (src/acd/service.ts emits them); no-agent says why. */
export function emitQueueEvent(events: LifecycleEvents, type: 'queued' | 'abandoned', p: QueueMoment): Promise<void>;
export function emitQueueEvent(events: LifecycleEvents, type: 'no-agent', p: QueueMoment & { reason: 'none-available' | 'max-wait' }): Promise<void>;
export function emitQueueEvent(events: LifecycleEvents, type: 'queued' | 'abandoned' | 'no-agent', p: QueueMoment & { reason?: string }): Promise<void> {
  return events.emit({
    type, accountId: p.accountId, callSid: p.callSid,
    data: {
      from: p.from, to: p.to, queue: p.queue, queue_sid: p.queueSid, wait_seconds: p.waitSeconds, position: p.position,
      ...(p.reason === undefined ? {} : { reason: p.reason }),
    },
  });
}
