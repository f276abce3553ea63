// The nine lifecycle event types of the spec, and the emit points call flows use. Delivery (durable outbox,
// signed webhooks) sits behind this interface so call code never knows how events travel.

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
  emit(event: LifecycleEvent): void;
}
