import { Type, type Static } from '@sinclair/typebox';
import { HttpUrl, Nullable, StringEnum } from './common.js';
import { ANSWERED_BY } from '../../media/answering-machine.js';
import { MachineDetectionFields } from './machine-detection.js';

const Method = Type.Unsafe<'POST' | 'GET'>({ type: 'string', enum: ['POST', 'GET'] });

export const CallCreateBody = Type.Object({
  from: Type.String({ description: 'An active number of the account, exactly as the dashboard shows it (E.164).' }),
  to: Type.String({ description: 'E.164 number, sip:/sips: URI, or client:<identity>.' }),
  url: Type.Optional(HttpUrl('Markup URL asked when the call is answered (POST JSON {from, to, direction, call_sid}).')),
  method: Type.Optional(Method),
  markup: Type.Optional(Type.String({ maxLength: 65536, description: 'Inline markup (XML <Response> or the JSON subset) instead of url.' })),
  status_callback: Type.Optional(HttpUrl('Receives status callbacks (form-encoded, signed).')),
  status_callback_event: Type.Optional(Type.String({ format: 'callback-events', description: 'Space-separated: initiated ringing in-progress completed. Default "completed".' })),
  status_callback_method: Type.Optional(Method),
  timeout: Type.Optional(Type.Integer({ minimum: 5, maximum: 600, description: 'Seconds to ring before no-answer. Default 60.' })),
  record: Type.Optional(Type.Boolean({ description: 'Record the call from answer (both tracks, two channels). Default false.' })),
  trunk_id: Type.Optional(Type.Integer({ description: 'Place the call to `to` through this registered trunk (a PBX extension).' })),
  ...MachineDetectionFields,
}, { $id: 'CallCreate' });
export type CallCreateInput = Static<typeof CallCreateBody>;

export const CallUpdateBody = Type.Object({
  status: Type.Optional(StringEnum(['completed', 'canceled'] as const, {
    description: '"completed" ends the call whatever its state (an answered call is hung up, a ringing one withdrawn or refused); "canceled" ends a call only while it is queued or ringing (409 call_in_progress once answered).',
  })),
  url: Type.Optional(HttpUrl('Redirect: this URL is asked for a document (as the call\'s own webhooks are), which replaces the running one: the verb under way stops and the new document runs.')),
  method: Type.Optional(Method),
  markup: Type.Optional(Type.String({ maxLength: 65536, description: 'Redirect to inline markup (XML <Response> or the JSON subset) instead of url.' })),
}, { $id: 'CallUpdate', additionalProperties: false, description: 'Exactly one of status, url or markup.' });
export type CallUpdateInput = Static<typeof CallUpdateBody>;

export const RecordingSummary = Type.Object({
  sid: Type.String(),
  call_sid: Type.String(),
  status: Type.String({ enum: ['in-progress', 'paused', 'completed', 'absent', 'failed'], description: 'absent: stopped with no audio caught (duration 0, an empty WAV).' }),
  source: Type.String({ enum: ['call', 'record-verb', 'voicemail', 'dial', 'conference'] }),
  conference_sid: Nullable(Type.String({ description: 'For a conference recording (the room\'s mix): the conference.' })),
  tracks: Type.String({ enum: ['inbound', 'outbound', 'both'] }),
  channels: Type.Integer(),
  duration: Nullable(Type.Integer({ description: 'Seconds of audio the WAV holds (paused time excluded); null while in progress.' })),
  immutable: Type.Boolean(),
  created_at: Type.String({ format: 'date-time' }),
  completed_at: Nullable(Type.String({ format: 'date-time' })),
  media_url: Type.String({ description: 'WAV download (API key required).' }),
  transcription: Nullable(Type.Object({
    status: Type.String({ enum: ['in-progress', 'completed', 'failed'] }),
    text: Nullable(Type.String({ description: 'The words (completed).' })),
    error: Nullable(Type.String({ description: 'Why there are none (failed).' })),
  }, { description: 'Its transcript, once one was asked for (<Record transcribe>, POST /api/recordings/{sid}/transcription); null before.' })),
}, { $id: 'Recording' });

export const CallResource = Type.Object({
  sid: Type.String(),
  from: Type.String(),
  to: Type.String(),
  direction: Type.String({ enum: ['inbound', 'outbound-api', 'outbound-dial', 'trunk'] }),
  status: Type.String({ enum: ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'] }),
  number: Nullable(Type.String()),
  trunk_id: Nullable(Type.Integer()),
  parent_call_sid: Nullable(Type.String()),
  created_at: Type.String({ format: 'date-time' }),
  answered_at: Nullable(Type.String({ format: 'date-time' })),
  ended_at: Nullable(Type.String({ format: 'date-time' })),
  duration: Nullable(Type.Integer({ description: 'Seconds from answer to end.' })),
  hangup_cause: Nullable(Type.String()),
  answered_by: Nullable(Type.String({
    enum: [...ANSWERED_BY],
    description: 'What answering-machine detection found (machine_detection); null when none ran.',
  })),
  recordings: Type.Array(RecordingSummary),
}, { $id: 'Call' });

export const CallListQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['queued', 'ringing', 'in-progress', 'completed', 'busy', 'failed', 'no-answer', 'canceled'] })),
  direction: Type.Optional(Type.String({ enum: ['inbound', 'outbound-api', 'outbound-dial', 'trunk'] })),
  from: Type.Optional(Type.String()),
  to: Type.Optional(Type.String()),
  parent_call_sid: Type.Optional(Type.String()),
  start_time_after: Type.Optional(Type.String({ format: 'date-time' })),
  start_time_before: Type.Optional(Type.String({ format: 'date-time' })),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 50 })),
  page_token: Type.Optional(Type.String({ description: 'next_page_token of the previous page.' })),
});
export type CallListInput = Static<typeof CallListQuery>;

export const CallList = Type.Object({ data: Type.Array(CallResource), next_page_token: Nullable(Type.String()) });

export const RecordingStartBody = Type.Object({
  tracks: Type.Optional(StringEnum(['inbound', 'outbound', 'both'] as const)),
  dual_channel: Type.Optional(Type.Boolean({ description: 'With tracks both: one channel per side. Default true.' })),
  recording_status_callback: Type.Optional(HttpUrl('https URL notified when the recording is ready.')),
});
export type RecordingStartInput = Static<typeof RecordingStartBody>;

export const RecordingUpdateBody = Type.Object({
  status: StringEnum(['paused', 'in-progress', 'stopped'] as const, { description: 'paused, in-progress (resume) or stopped.' }),
});
export type RecordingUpdateInput = Static<typeof RecordingUpdateBody>;
