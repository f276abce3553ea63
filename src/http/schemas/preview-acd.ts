// /v1/queues and /v1/agents: the ACD's bodies and resources (docs/acd.md).
import { Type, type Static } from '@sinclair/typebox';
import { Name, Nullable, StringEnum, Text } from './common.js';
import { NAME_LIMITS, TEXT_LIMITS } from '../../names/index.js';
import { Page } from './preview.js';
import { DEFAULT_QUEUE_SETTINGS as D, MACHINE_ACTIONS } from '../../acd/queues.js';
import { MACHINE_DETECTION_MODES } from '../../media/answering-machine.js';

/** Ranges of the queue settings, and their defaults. */
export const QUEUE_LIMITS = {
  max_wait_seconds: { minimum: 10, maximum: 86_400, default: D.maxWaitSeconds },
  ring_timeout_seconds: { minimum: 5, maximum: 120, default: D.ringTimeoutSeconds },
  wrap_up_seconds: { minimum: 0, maximum: 3_600, default: D.wrapUpSeconds },
  max_no_answer: { minimum: 1, maximum: 20, default: D.maxNoAnswer },
} as const;

const limited = (name: keyof typeof QUEUE_LIMITS, description: string) => {
  const { minimum, maximum, default: byDefault } = QUEUE_LIMITS[name];
  return Type.Integer({ minimum, maximum, description: `${description} Default ${byDefault}.` });
};

const queueSettings = {
  max_wait_seconds: limited('max_wait_seconds', 'Longest a caller waits before the no-agent event and the Enqueue action.'),
  ring_timeout_seconds: limited('ring_timeout_seconds', "How long an agent's seat rings before the call goes to the next agent."),
  wrap_up_seconds: limited('wrap_up_seconds', 'After a call, the agent gets no call for this long, or until a disposition is set.'),
  max_no_answer: limited('max_no_answer', 'Offers an agent misses in a row before the platform puts the agent on break.'),
  wait_url: Nullable(Type.String({ maxLength: 2048, description: 'Audio (WAV or MP3) looped to waiting callers, fetched under the media policy, or a wait document (<Say>, <Play>, <Pause>, <Redirect>) asked for again each time it ends; null for silence.' })),
  machine_detection: Nullable(StringEnum(MACHINE_DETECTION_MODES, {
    description: "Answering-machine detection on the customers the queue's callbacks and speed-to-lead leads dial: enable, detect_message_end, or null (off, the default). With it, the customer is dialled before any agent is rung; a machine is never put through to an agent.",
  })),
  machine_action: StringEnum(MACHINE_ACTIONS, {
    description: 'What a machine answer gets: retry (the attempt fails, tried again as a customer who did not answer; the default) or message (machine_message is said once the greeting ends, then the callback is completed; needs detect_message_end). A fax always fails the callback for good.',
  }),
  machine_message: Nullable(Text(TEXT_LIMITS.machineMessage, 'Said to a machine after its greeting (machine_action message), in the platform voice.')),
};

export const QueueCreateBody = Type.Composite([
  Type.Object({ friendly_name: Name(NAME_LIMITS.queue, 'Unique in the account; markup names the queue by it.') }),
  Type.Partial(Type.Object(queueSettings)),
], { additionalProperties: false });
export type QueueCreateInput = Static<typeof QueueCreateBody>;

export const QueueUpdateBody = Type.Partial(Type.Object({ friendly_name: Name(NAME_LIMITS.queue, 'Unique in the account.'), ...queueSettings }), { additionalProperties: false });
export type QueueUpdateInput = Static<typeof QueueUpdateBody>;

export const QueueResource = Type.Object({
  sid: Type.String({ description: 'Prefix QU.' }),
  friendly_name: Type.String(),
  max_wait_seconds: Type.Integer(),
  ring_timeout_seconds: Type.Integer(),
  wrap_up_seconds: Type.Integer(),
  max_no_answer: Type.Integer(),
  wait_url: Nullable(Type.String()),
  machine_detection: Nullable(StringEnum(MACHINE_DETECTION_MODES)),
  machine_action: StringEnum(MACHINE_ACTIONS),
  machine_message: Nullable(Type.String()),
  size: Type.Integer({ description: 'Callers waiting now.' }),
  agents_available: Type.Integer({ description: 'Agents of the queue that are available and idle now.' }),
  longest_wait_seconds: Type.Integer({ description: 'How long the first caller in line has waited; 0 when nobody waits.' }),
  date_created: Type.String({ format: 'date-time' }),
  date_updated: Type.String({ format: 'date-time' }),
});
export const QueueList = Page(QueueResource);

export const QueueMembers = Page(Type.Object({
  call_sid: Type.String(),
  position: Type.Integer({ description: '1 is next in line.' }),
  wait_seconds: Type.Integer(),
}));

const AgentStatusSchema = StringEnum(['offline', 'available', 'break'] as const, { description: "The agent's choice: offline, available or break." });
const QueueRefs = Type.Array(Name(NAME_LIMITS.queue, 'A queue, by name or sid.'), { maxItems: 50, uniqueItems: true, description: 'Queues the agent serves, by name or sid.' });

export const AgentCreateBody = Type.Object({
  friendly_name: Name(NAME_LIMITS.agent, "The agent's name."),
  trunk_id: Type.Integer({ minimum: 1, description: "The agent's seat: a wss seat or SIP trunk of the account (its calls ring there)." }),
  queues: Type.Optional(QueueRefs),
}, { additionalProperties: false });
export type AgentCreateInput = Static<typeof AgentCreateBody>;

export const AgentUpdateBody = Type.Partial(Type.Object({
  friendly_name: Name(NAME_LIMITS.agent, "The agent's name."),
  trunk_id: Type.Integer({ minimum: 1 }),
  queues: QueueRefs,
  status: AgentStatusSchema,
  break_reason: Nullable(Text(TEXT_LIMITS.breakReason, 'Why the agent is on break (shown to supervisors); cleared when the status is not break.')),
}), { additionalProperties: false });
export type AgentUpdateInput = Static<typeof AgentUpdateBody>;

export const AgentResource = Type.Object({
  sid: Type.String({ description: 'Prefix AG.' }),
  friendly_name: Type.String(),
  trunk_id: Type.Integer(),
  queues: Type.Array(Type.String(), { description: 'Sids of the queues the agent serves.' }),
  status: Type.String({ enum: ['offline', 'available', 'break'] }),
  break_reason: Nullable(Type.String()),
  activity: Type.String({ enum: ['idle', 'reserved', 'ringing', 'busy', 'wrap-up'], description: "The platform's: what the agent is doing now." }),
  current_call_sid: Nullable(Type.String()),
  date_created: Type.String({ format: 'date-time' }),
  date_updated: Type.String({ format: 'date-time' }),
});
export const AgentList = Page(AgentResource);

export const AgentListQuery = Type.Object({
  queue: Type.Optional(Name(NAME_LIMITS.queue, 'Only agents serving this queue (name or sid).')),
  status: Type.Optional(AgentStatusSchema),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100 })),
  cursor: Type.Optional(Type.String({ maxLength: 200 })),
}, { additionalProperties: false });
export type AgentListInput = Static<typeof AgentListQuery>;

export const DispositionCreateBody = Type.Object({
  call_sid: Type.String({ minLength: 34, maxLength: 34, pattern: '^CA[0-9a-f]{32}$', description: 'The call: the caller\'s call (an agent\'s current_call_sid) or any call of the account.' }),
  disposition: Name(NAME_LIMITS.disposition, 'The outcome code, e.g. sale, no-interest.'),
  notes: Type.Optional(Nullable(Text(TEXT_LIMITS.dispositionNotes, 'Free text.'))),
}, { additionalProperties: false });
export type DispositionCreateInput = Static<typeof DispositionCreateBody>;

export const DispositionResource = Type.Object({
  sid: Type.String({ description: 'Prefix DP.' }),
  call_sid: Type.String(),
  disposition: Type.String(),
  notes: Nullable(Type.String()),
  agent_sid: Nullable(Type.String({ description: 'The agent on the call (busy or in wrap-up with it) when the disposition was set, or null.' })),
  date_created: Type.String({ format: 'date-time' }),
});
export const DispositionList = Page(DispositionResource);

export const DispositionListQuery = Type.Object({
  call_sid: Type.String({ minLength: 1, maxLength: 64, description: 'The call whose dispositions to list.' }),
}, { additionalProperties: false });

export const MonitorBody = Type.Object({
  to: Type.String({ minLength: 1, maxLength: 256, description: "The supervisor's phone or seat: an E.164 number, a sip: URI or client:<identity>." }),
  from: Type.Optional(Type.String({ description: 'Caller ID, a number of the account (E.164); by default the number the customer called.' })),
  mode: Type.Optional(StringEnum(['monitor', 'whisper', 'barge'] as const, {
    description: 'monitor: listens, heard by nobody (default); whisper: heard by the agent only (coaching); barge: heard by both.',
  })),
}, { additionalProperties: false });
export type MonitorInput = Static<typeof MonitorBody>;

export const MonitorResource = Type.Object({
  call_sid: Type.String({ description: "The supervisor's call (queued, then ringing, then in progress in the agent's call)." }),
  agent_sid: Type.String(),
  monitored_call_sid: Type.String({ description: "The customer's call the agent is on." }),
  mode: Type.String({ enum: ['monitor', 'whisper', 'barge'] }),
  to: Type.String(),
  status: Type.String({ enum: ['queued'] }),
});
