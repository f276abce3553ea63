// /v1/callbacks: scheduled callbacks (docs/acd.md).
import { Type, type Static } from '@sinclair/typebox';
import { Name, Nullable, StringEnum } from './common.js';
import { NAME_LIMITS } from '../../names/index.js';
import { RFC3339_EXAMPLE } from '../../rfc3339.js';
import { Page } from './preview.js';
import { ANSWERED_BY } from '../../media/answering-machine.js';
import { Attributes, E164 } from './preview-leads.js';

const CallbackStatus = StringEnum(['scheduled', 'dialing', 'completed', 'failed', 'canceled'] as const, {
  description: 'scheduled → dialing (an agent is sought, rung, then the customer; the customer first when the queue detects machines) → completed | failed; canceled while scheduled.',
});

export const CallbackCreateBody = Type.Object({
  queue: Name(NAME_LIMITS.queue, 'The queue whose agents take the callback (name or sid).'),
  to: Type.String({ pattern: E164, description: 'The customer to call back (E.164).' }),
  from: Type.String({ pattern: E164, description: 'Caller ID: a number of the account (E.164).' }),
  due_at: Type.String({ format: 'date-time', maxLength: 40, description: `When to call back: RFC 3339 with seconds and a time zone (${RFC3339_EXAMPLE}), not in the past, at most 90 days ahead.` }),
  attributes: Type.Optional(Attributes),
}, { additionalProperties: false });
export type CallbackCreateInput = Static<typeof CallbackCreateBody>;

export const CallbackResource = Type.Object({
  sid: Type.String({ description: 'Prefix CB.' }),
  queue_sid: Nullable(Type.String({ description: 'Null once the queue was deleted (a queue with callbacks still to make cannot be).' })),
  to: Type.String(),
  from: Type.String(),
  due_at: Type.String({ format: 'date-time', description: 'When it is (or was last) due; a retry moves it.' }),
  attributes: Type.Record(Type.String(), Type.String()),
  status: CallbackStatus,
  attempts: Type.Integer({ description: 'Attempts started so far (at most 3).' }),
  call_sid: Nullable(Type.String({ description: "The latest attempt's call to the customer." })),
  agent_sid: Nullable(Type.String({ description: 'The agent who took the latest attempt.' })),
  answered_by: Nullable(StringEnum(ANSWERED_BY, { description: "What answered the latest attempt's call, when the queue detects machines (machine_detection); null otherwise or before an answer." })),
  last_error: Nullable(Type.String({ description: 'Why the latest attempt failed.' })),
  lead_sid: Nullable(Type.String({ description: 'The lead it came from (speed to lead), or null.' })),
  date_created: Type.String({ format: 'date-time' }),
  date_updated: Type.String({ format: 'date-time' }),
});
export const CallbackList = Page(CallbackResource);

export const CallbackListQuery = Type.Object({
  status: Type.Optional(CallbackStatus),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });
export type CallbackListInput = Static<typeof CallbackListQuery>;
