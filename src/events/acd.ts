// Emit points for the events whose sources (agents, dispositions, scheduled callbacks) belong to the ACD work.
// Call these; the outbox does the rest. Field meanings are in src/events/catalogue.ts and docs/events.md.
import type { LifecycleEvents } from './lifecycle.js';

interface CallParty { accountId: number; callSid: string; from: string; to: string }

/** A disposition code was set on a call (by an agent or automatically). */
export function emitDisposition(events: LifecycleEvents, p: CallParty & { disposition: string; setBy?: string | null; notes?: string | null }): void {
  events.emit({
    type: 'disposition', accountId: p.accountId, callSid: p.callSid,
    data: { from: p.from, to: p.to, disposition: p.disposition, set_by: p.setBy ?? null, notes: p.notes ?? null },
  });
}

/** A scheduled callback became due. `callSid` is the call that scheduled it, when there was one. */
export function emitCallbackDue(
  events: LifecycleEvents,
  p: { accountId: number; callSid?: string | null; callbackSid: string; phone: string; dueAt: Date; campaign?: string | null },
): void {
  events.emit({
    type: 'callback', accountId: p.accountId, callSid: p.callSid ?? null,
    data: { callback_sid: p.callbackSid, phone: p.phone, due_at: p.dueAt.toISOString(), campaign: p.campaign ?? null },
  });
}

/** queued, abandoned and no-agent share one shape (src/calls/features/queue.ts emits them today). */
export function emitQueueEvent(
  events: LifecycleEvents,
  type: 'queued' | 'abandoned' | 'no-agent',
  p: CallParty & { queue: string; waitSeconds: number },
): void {
  events.emit({ type, accountId: p.accountId, callSid: p.callSid, data: { from: p.from, to: p.to, queue: p.queue, wait_seconds: p.waitSeconds } });
}
