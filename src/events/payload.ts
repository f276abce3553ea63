// The bytes of one delivery and the headers that authenticate them.
import { sign, SIGNATURE_HEADER } from '../net/index.js';
import type { ClaimedDelivery } from './outbox-store.js';
import { renderTemplate } from './template.js';

export const EVENT_HEADER = 'X-Service-Event';

/** Default body `{event_type, event_sid, subscription_sid, occurred_at, call_sid, data}`, or the template's shape. */
export function deliveryBody(d: ClaimedDelivery): string {
  const body = {
    event_type: d.event.type,
    event_sid: d.event.sid,
    subscription_sid: d.subscription.sid,
    occurred_at: d.event.occurredAt,
    call_sid: d.event.callSid,
    data: d.event.data,
  };
  return d.subscription.payloadTemplate === null ? JSON.stringify(body) : renderTemplate(d.subscription.payloadTemplate, body);
}

/**
 * Custom headers (opened from their seal) first, so ours always win (saving a subscription already refuses
 * overriding them).
 */
export function deliveryHeaders(d: ClaimedDelivery, custom: Record<string, string>, secret: string, body: string, unixSeconds: number): Record<string, string> {
  return {
    ...custom,
    'content-type': 'application/json',
    'user-agent': 'Ringbase-Webhooks/1',
    [SIGNATURE_HEADER]: sign(secret, body, unixSeconds),
    [EVENT_HEADER]: d.event.type,
  };
}
