import { Type, type Static } from '@sinclair/typebox';

export const E164 = '^\\+[1-9][0-9]{1,14}$';

/** Free-form string attributes a lead or a callback carries to the agent's screen and the events. */
export const Attributes = Type.Record(Type.String(), Type.String({ maxLength: 1024 }), {
  maxProperties: 50, propertyNames: { maxLength: 64 }, description: 'Up to 50 string values (keys up to 64, values up to 1024 characters).',
});

export const LeadInjectionBody = Type.Object({
  phone: Type.String({ pattern: E164, description: 'E.164, e.g. +15550100003.' }),
  campaign: Type.String({ minLength: 1, maxLength: 255, format: 'single-line', description: 'Campaign the lead belongs to.' }),
  attributes: Type.Optional(Attributes),
}, { additionalProperties: false });
export type LeadInjectionInput = Static<typeof LeadInjectionBody>;

export const Lead = Type.Object({
  sid: Type.String({ description: 'Prefix LD.' }),
  status: Type.String({ enum: ['accepted'] }),
  phone: Type.String(),
  campaign: Type.String(),
  attributes: Type.Record(Type.String(), Type.String()),
  created_at: Type.String({ format: 'date-time' }),
});
