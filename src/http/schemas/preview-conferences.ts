// /v1/conferences shapes. Write bodies arrive form-encoded (the spec) or as JSON; booleans are `true`/`false`
// either way, so body fields are declared loosely here and read by conference-input.ts, which names the bad param.
import { Type } from '@sinclair/typebox';
import { PREVIEW_PAGE_MAX } from './preview.js';
import { Name, Nullable, StringEnum } from './common.js';
import { MachineDetectionFields, type MachineDetectionInput } from './machine-detection.js';
import { ANSWERED_BY } from '../../media/answering-machine.js';
import { NAME_LIMITS } from '../../names/index.js';

const Flag = (description: string) => Type.Optional(Type.Union([Type.Boolean(), Type.String()], { description: `${description} true or false.` }));

export const Conference = Type.Object({
  sid: Type.String({ description: 'Prefix CF.' }),
  friendly_name: Type.String(),
  status: Type.String({ enum: ['init', 'in-progress', 'completed'] }),
  participant_count: Type.Integer({ description: 'Participants bridged into the room now.' }),
  record: Type.Boolean(),
  end_reason: Type.Union([Type.String(), Type.Null()], { description: 'conference-ended-via-api, participant-with-end-conference-on-exit-left, last-participant-left, platform-restart (the control plane running it died) or no-participant-within-wait (nobody connecting or in it for 60 s after it was created).' }),
  date_created: Type.String({ format: 'date-time' }),
  date_updated: Type.String({ format: 'date-time' }),
});

export const Participant = Type.Object({
  call_sid: Type.String(),
  conference_sid: Type.String(),
  status: Type.String({ enum: ['connecting', 'in-progress', 'completed'] }),
  muted: Type.Boolean(),
  hold: Type.Boolean(),
  hold_url: Type.Union([Type.String(), Type.Null()]),
  coaching: Type.Boolean(),
  call_sid_to_coach: Type.Union([Type.String(), Type.Null()]),
  start_conference_on_enter: Type.Boolean(),
  end_conference_on_exit: Type.Boolean(),
  answered_by: Nullable(StringEnum(ANSWERED_BY, { description: 'What answered, when the participant was added with machine_detection (decided before it joins); null otherwise.' })),
  date_created: Type.String({ format: 'date-time' }),
  date_updated: Type.String({ format: 'date-time' }),
});

export const ConferenceList = Type.Object({
  conferences: Type.Array(Conference),
  meta: Type.Object({
    page_size: Type.Integer(),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last page.' }),
  }),
});

export const ParticipantList = Type.Object({ participants: Type.Array(Participant) });

export const ConferenceListQuery = Type.Object({
  status: Type.Optional(Type.String({ enum: ['init', 'in-progress', 'completed'] })),
  friendly_name: Type.Optional(Name(NAME_LIMITS.conference, 'Exact match.')),
  page_size: Type.Optional(Type.Integer({ minimum: 1, maximum: PREVIEW_PAGE_MAX, description: `Default 50, maximum ${PREVIEW_PAGE_MAX}.` })),
  cursor: Type.Optional(Type.String({ maxLength: 200, description: 'The meta.next_cursor of the previous page.' })),
}, { additionalProperties: false });

export const ConferenceUpdateBody = Type.Object({
  status: Type.Optional(Type.String({ description: 'completed ends the conference: every participant is disconnected.' })),
  announce_url: Type.Optional(Type.String({ description: 'Audio (WAV or MP3), or a document of <Say>, <Play> and <Pause>, played once to every participant; the conference then resumes.' })),
}, { additionalProperties: false });

export const ParticipantCreateBody = Type.Object({
  from: Type.String({ description: 'Caller ID: an active E.164 number of the account.' }),
  to: Type.String({ description: 'E.164 number, sip:/sips: URI, or client:<identity>.' }),
  muted: Flag('Joins muted. Default false.'),
  start_conference_on_enter: Flag('The conference starts when this participant joins. Default true.'),
  end_conference_on_exit: Flag('The conference ends when this participant leaves. Default false.'),
  status_callback: Type.Optional(Type.String({ description: 'https URL for the conference status callbacks (the first one given serves the conference).' })),
  beep: Type.Optional(Type.String({ description: 'A tone to the room when this participant enters and leaves: true (default), false, onEnter or onExit.' })),
  ...MachineDetectionFields,
}, { additionalProperties: false });

export const ParticipantUpdateBody = Type.Object({
  muted: Flag('Not heard by the room while muted.'),
  hold: Flag('On hold: not heard, hears the hold audio instead of the room.'),
  hold_url: Type.Optional(Type.String({ maxLength: 2048, description: 'Audio (WAV or MP3) played in a loop while on hold, or a hold document (<Say>, <Play>, <Pause>, <Redirect>) asked for again each time it ends; silence when absent. Checked under the media policy when written.' })),
  coaching: Flag('Heard only by call_sid_to_coach.'),
  call_sid_to_coach: Type.Optional(Type.String({ description: 'The participant this one coaches (required with coaching=true).' })),
}, { additionalProperties: false });

export type ConferenceUpdateInput = { status?: string; announce_url?: string };
export type ParticipantCreateInput = MachineDetectionInput & { from: string; to: string; muted?: boolean | string; start_conference_on_enter?: boolean | string; end_conference_on_exit?: boolean | string; status_callback?: string; beep?: string };
export type ParticipantUpdateInput = { muted?: boolean | string; hold?: boolean | string; hold_url?: string; coaching?: boolean | string; call_sid_to_coach?: string };
