// The nine lifecycle event types of the spec, and the emit points call flows use. Delivery (durable outbox,
// signed webhooks) sits behind this interface so call code never knows how events travel.
import type { SqlQueries } from '../store/sql.js';

export const EVENT_TYPES = [
  'web-form', 'call-start', 'hangup', 'no-agent', 'disposition', 'callback', 'queued', 'abandoned', 'voicemail-left',
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export interface LifecycleEvent {
  type: EventType;
  accountId: number;
  callSid: string | null;
  /** Event-specific fields: from, to, duration, disposition, queue, recording_sid, ... */
  data: Record<string, unknown>;
}

export interface LifecycleEvents {
  /**
   * Makes the event durable. Pass the `tx` of the transaction that makes the state change the event reports: the
   * event is written in it, so it exists exactly when that change commits. Without one, the event is written in a
   * transaction of its own. Rejects if it cannot be written, rather than losing the event quietly.
   */
  emit(event: LifecycleEvent, tx?: SqlQueries): Promise<void>;
}
