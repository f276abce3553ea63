import { Type, type Static } from '@sinclair/typebox';
import { Name, Text } from './common.js';
import { NAME_LIMITS, TEXT_LIMITS } from '../../names/index.js';

export const E164 = '^\\+[1-9][0-9]{1,14}$';

/** Free-form string attributes a lead or a callback carries to the agent's screen and the events. */
export const Attributes = Type.Record(Type.String(), Text(TEXT_LIMITS.attributeValue, 'A value.'), {
  maxProperties: 50, propertyNames: { minLength: 1, maxLength: NAME_LIMITS.attributeKey, format: 'name' },
  description: `Up to 50 string values; keys are names of up to ${NAME_LIMITS.attributeKey} characters, values text of up to ${TEXT_LIMITS.attributeValue}.`,
});

export const LeadInjectionBody = Type.Object({
  phone: Type.String({ pattern: E164, description: 'E.164, e.g. +15550100003.' }),
  campaign: Name(NAME_LIMITS.campaign, 'Campaign the lead belongs to.'),
  attributes: Type.Optional(Attributes),
}, { additionalProperties: false });
export type LeadInjectionInput = Static<typeof LeadInjectionBody>;

export const Lead = Type.Object({
  sid: Type.String({ description: 'Prefix LD.' }),
  status: Type.String({ enum: ['accepted'] }),
  phone: Type.String(),
  campaign: Type.String(),
  attributes: Type.Record(Type.String(), Type.String()),
  callback_sid: Type.Union([Type.String(), Type.Null()], { description: "The speed-to-lead callback (the campaign's setting), or null." }),
  created_at: Type.String({ format: 'date-time' }),
});

export const CampaignBody = Type.Object({
  speed_to_lead_queue: Type.Optional(Type.Union([Name(NAME_LIMITS.queue, 'A queue, by name or sid.'), Type.Null()], {
    description: 'The queue (name or sid) whose agents call each new lead of the campaign back at once; null turns speed to lead off.',
  })),
  caller_id: Type.Optional(Type.Union([Type.String({ pattern: E164 }), Type.Null()], { description: 'The number of the account the lead sees calling (required with a queue).' })),
}, { additionalProperties: false });
export type CampaignInput = Static<typeof CampaignBody>;

export const Campaign = Type.Object({
  name: Type.String(),
  speed_to_lead_queue_sid: Type.Union([Type.String(), Type.Null()]),
  caller_id: Type.Union([Type.String(), Type.Null()]),
  date_created: Type.String({ format: 'date-time' }),
  date_updated: Type.String({ format: 'date-time' }),
});

export const CampaignParams = Type.Object({ name: Name(NAME_LIMITS.campaign, 'The campaign.') });
