import { Type, type Static } from '@sinclair/typebox';
import { EVENT_TYPES, type EventType } from '../../events/lifecycle.js';
import { MAX_TEMPLATE_LENGTH } from '../../events/template.js';
import { Nullable } from './common.js';
import { Page } from './preview.js';

export const TIMEOUT_MS = { min: 100, max: 30_000, default: 5_000 };
export const MAX_RETRIES = { min: 0, max: 10, default: 5 };

const EventTypeSchema = Type.Unsafe<EventType>({ type: 'string', enum: [...EVENT_TYPES], description: 'One of the nine event types.' });
const Headers = Type.Record(Type.String(), Type.String({ maxLength: 1024 }), {
  maxProperties: 20, description: 'Custom headers merged into each delivery (up to 20). Cannot override X-Service-Signature, X-Service-Event or Content-Type.',
});

const settings = {
  target_url: Type.String({ minLength: 1, maxLength: 2048, description: 'HTTPS endpoint whose host is on the organisation allow-list.' }),
  headers: Headers,
  delivery_mode: Type.Unsafe<'sync' | 'async'>({ type: 'string', enum: ['sync', 'async'], description: '`sync`: a mid-call flow awaits the 2xx (up to timeout_ms). `async` (default): fire and forget with retries.' }),
  timeout_ms: Type.Integer({ minimum: TIMEOUT_MS.min, maximum: TIMEOUT_MS.max, description: `Per-attempt wait. Default ${TIMEOUT_MS.default}.` }),
  max_retries: Type.Integer({ minimum: MAX_RETRIES.min, maximum: MAX_RETRIES.max, description: `Retries after the first attempt. Default ${MAX_RETRIES.default}.` }),
  payload_template: Nullable(Type.String({ maxLength: MAX_TEMPLATE_LENGTH, description: 'JSON with {{path}} placeholders (docs/events.md); null for the default body.' })),
};

export const WebhookCreateBody = Type.Object({
  event_type: EventTypeSchema,
  ...settings,
  headers: Type.Optional(settings.headers),
  delivery_mode: Type.Optional(settings.delivery_mode),
  timeout_ms: Type.Optional(settings.timeout_ms),
  max_retries: Type.Optional(settings.max_retries),
  payload_template: Type.Optional(settings.payload_template),
}, { additionalProperties: false });
export type WebhookCreateInput = Static<typeof WebhookCreateBody>;

export const WebhookUpdateBody = Type.Partial(Type.Object({
  ...settings,
  status: Type.Unsafe<'active' | 'paused'>({ type: 'string', enum: ['active', 'paused'], description: '`paused` keeps the configuration and stops deliveries.' }),
}), { additionalProperties: false });
export type WebhookUpdateInput = Static<typeof WebhookUpdateBody>;

const subscriptionProps = {
  sid: Type.String({ description: 'Prefix WH.' }),
  event_type: EventTypeSchema,
  target_url: Type.String(),
  headers: Type.Record(Type.String(), Type.String(), {
    description: 'Custom header names with masked values (`••••` and the last 4 characters; values shorter than 8 characters show `••••` only). The values are stored encrypted and never returned.',
  }),
  delivery_mode: Type.String({ enum: ['sync', 'async'] }),
  timeout_ms: Type.Integer(),
  max_retries: Type.Integer(),
  payload_template: Nullable(Type.String()),
  status: Type.String({ enum: ['active', 'paused'] }),
  created_at: Type.String({ format: 'date-time' }),
  updated_at: Type.String({ format: 'date-time' }),
};

export const WebhookSubscription = Type.Object(subscriptionProps);
export const WebhookSubscriptionCreated = Type.Object({
  ...subscriptionProps,
  secret: Type.String({ description: 'Signing secret. Shown only in this response; stored encrypted.' }),
});
export const WebhookSummary = Type.Object({
  sid: subscriptionProps.sid, event_type: subscriptionProps.event_type, target_url: subscriptionProps.target_url, status: subscriptionProps.status,
});
export const WebhookList = Page(WebhookSummary);

export const DeliveryAttempt = Type.Object({
  attempt: Type.Integer({ description: '1 for the first attempt.' }),
  started_at: Type.String({ format: 'date-time' }),
  status_code: Nullable(Type.Integer({ description: 'HTTP status received; null when no response arrived.' })),
  latency_ms: Type.Integer(),
  error: Nullable(Type.String({ description: 'Why the attempt failed (`code: detail`); null on success.' })),
});

export const WebhookDelivery = Type.Object({
  sid: Type.String({ description: 'Prefix DL.' }),
  event_sid: Type.String({ description: 'Prefix EV; also in the delivered body.' }),
  event_type: EventTypeSchema,
  status: Type.String({ enum: ['pending', 'delivered', 'exhausted'] }),
  attempt_count: Type.Integer(),
  next_attempt_at: Nullable(Type.String({ format: 'date-time', description: 'When a pending delivery is next tried.' })),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  attempts: Type.Array(DeliveryAttempt),
});
export const WebhookDeliveryList = Page(WebhookDelivery);
