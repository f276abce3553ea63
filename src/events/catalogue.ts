// What each event type carries in `data`. One table feeds three things: payload-template validation (only
// these paths may be referenced), the sample values a template is test-rendered with, and docs/events.md.
import type { EventType } from './lifecycle.js';

export interface FieldSpec { sample: unknown; description: string }
export type DataFields = Record<string, FieldSpec>;

const party = {
  from: { sample: '+15550100001', description: 'Caller (E.164, SIP URI or client identity).' },
  to: { sample: '+15550100002', description: 'Called number or address.' },
} satisfies DataFields;

const queueFields = {
  ...party,
  queue: { sample: 'support', description: 'ACD queue name.' },
  queue_sid: { sample: 'QU0123456789abcdef0123456789abcdef', description: 'The queue (`QU...`).' },
  wait_seconds: { sample: 42, description: 'Whole seconds the caller had waited in the queue.' },
  position: { sample: 3, description: 'The caller\'s place in line at that moment (1 = next to be offered).' },
} satisfies DataFields;

export const EVENT_DATA: Record<EventType, DataFields> = {
  'web-form': {
    lead_sid: { sample: 'LD0123456789abcdef0123456789abcdef', description: 'The lead resource created by the injection.' },
    phone: { sample: '+15550100003', description: 'Lead phone number (E.164).' },
    campaign: { sample: 'spring-promo', description: 'Campaign named in the injection.' },
    attributes: { sample: { name: 'Ada' }, description: 'The injected attributes (object of strings); `data.attributes.<key>` reaches one.' },
  },
  'call-start': {
    ...party,
    direction: { sample: 'inbound', description: '`inbound` or `outbound`.' },
  },
  hangup: {
    ...party,
    direction: { sample: 'inbound', description: '`inbound` or `outbound`.' },
    duration: { sample: 73, description: 'Whole seconds from answer to hang-up (0 when never answered).' },
    disposition: { sample: 'completed', description: 'Final call status: completed, busy, no-answer, failed, canceled.' },
    cause: { sample: 'caller-hangup', description: 'Why the call ended.' },
  },
  'no-agent': {
    ...queueFields,
    reason: { sample: 'none-available', description: '`none-available`: no agent of the queue was available when the caller entered (the caller keeps waiting); `max-wait`: the caller waited the longest allowed and left the queue.' },
  },
  queued: queueFields,
  abandoned: queueFields,
  disposition: {
    ...party,
    disposition: { sample: 'sale', description: 'Disposition code set on the call.' },
    set_by: { sample: 'agent-17', description: 'Agent or system that set it, or null.' },
    notes: { sample: 'call back next week', description: 'Free text, or null.' },
  },
  callback: {
    callback_sid: { sample: 'CB0123456789abcdef0123456789abcdef', description: 'The scheduled callback.' },
    phone: { sample: '+15550100003', description: 'Number to call back (E.164).' },
    due_at: { sample: '2026-01-01T09:00:00.000Z', description: 'When the callback was scheduled for (ISO 8601).' },
    campaign: { sample: 'spring-promo', description: 'Campaign or queue it belongs to, or null.' },
    status: { sample: 'dialing', description: '`dialing`: an agent of the queue is rung, then the customer; `failed`: the callback cannot be made (its caller ID is no longer a number of the account) and is not tried again.' },
    reason: { sample: null, description: 'Why it failed (`failed`), or null.' },
  },
  'voicemail-left': {
    ...party,
    recording_sid: { sample: 'RE0123456789abcdef0123456789abcdef', description: 'The recording (`RE...`).' },
    duration: { sample: 12, description: 'Whole seconds recorded.' },
    source: { sample: 'voicemail', description: 'What recorded it: `voicemail` (after hours, IVR key) or `record` (Record verb).' },
    transcription_text: { sample: null, description: 'The message in words, when it was transcribed (`<Record transcribe="true">`: the event then waits for the transcription); null otherwise, or when the transcription failed.' },
  },
};

/** Fields every delivery body has, whatever the event type. */
export const ENVELOPE_FIELDS: DataFields = {
  event_type: { sample: 'hangup', description: 'One of the nine event types.' },
  event_sid: { sample: 'EV0123456789abcdef0123456789abcdef', description: 'Identifies the event; the same on every retry, so receivers can drop duplicates.' },
  subscription_sid: { sample: 'WH0123456789abcdef0123456789abcdef', description: 'The subscription this delivery is for.' },
  occurred_at: { sample: '2026-01-01T09:00:00.000Z', description: 'When the event happened (ISO 8601, UTC).' },
  call_sid: { sample: 'CA0123456789abcdef0123456789abcdef', description: 'The call, or null for events without one (web-form, callback).' },
};

/** Data paths under which any key is allowed (free-form objects). */
export const OPEN_OBJECTS: Partial<Record<EventType, string[]>> = { 'web-form': ['attributes'] };
