// Trunk form ↔ the live API's trunk body. The body is checked with the API's own TypeBox schema and
// validator (src/http/schemas/trunk.ts, src/http/validation.ts), so the dashboard and the API agree on every rule.
import type { ValidateFunction } from 'ajv';
import { validatorCompiler, fieldErrorsFromAjv } from '../validation.js';
import { TrunkCreateBody, TrunkUpdateBody } from '../schemas/trunk.js';
import { SETTING_COLUMNS, type Transport, type Trunk, type TrunkSettings } from '../../store/trunks.js';
import type { FieldErrors, FormValues } from './forms.js';

const NULLABLE_TEXT = ['label', 'client_ref', 'sip_domain', 'voice_webhook_url', 'voice_fallback_url', 'voice_refer_url', 'cli_lookup_url', 'default_caller_id', 'status_callback_url', 'hangup_url'] as const;

function compile(schema: object): ValidateFunction {
  return validatorCompiler({ schema, httpPart: 'body', method: 'POST', url: '/dashboard/trunks' } as Parameters<typeof validatorCompiler>[0]) as ValidateFunction;
}
const validateCreate = compile(TrunkCreateBody);
const validateUpdate = compile(TrunkUpdateBody);

export function trunkToForm(t: Trunk): FormValues {
  const f: FormValues = { transport: t.transport };
  for (const name of NULLABLE_TEXT) f[name] = t[name] ?? '';
  f.voice_webhook_method = t.voice_webhook_method;
  f.voice_fallback_method = t.voice_fallback_method;
  f.voice_refer_method = t.voice_refer_method;
  f.cli_lookup_method = t.cli_lookup_method;
  f.status_callback_events = t.status_callback_events;
  f.dual_channel_recording = t.dual_channel_recording ? 'on' : '';
  f.allowed_caller_ids = (t.allowed_caller_ids ?? []).join('\n');
  return f;
}

export const NEW_TRUNK_FORM: FormValues = { transport: 'wss', voice_webhook_method: 'POST', voice_fallback_method: 'POST', voice_refer_method: 'POST', cli_lookup_method: 'POST', status_callback_events: 'completed' };

function bodyOf(f: FormValues, withTransport: boolean): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  // Text fields are kept as typed (not trimmed) so the API's rules (line breaks, lengths) see what was entered.
  for (const name of NULLABLE_TEXT) body[name] = (f[name] ?? '').trim() === '' ? null : f[name];
  body.voice_webhook_method = f.voice_webhook_method ?? 'POST';
  body.voice_fallback_method = f.voice_fallback_method ?? 'POST';
  body.voice_refer_method = f.voice_refer_method ?? 'POST';
  body.cli_lookup_method = f.cli_lookup_method ?? 'POST';
  body.status_callback_events = (f.status_callback_events ?? '').trim();
  body.dual_channel_recording = f.dual_channel_recording === 'on';
  const ids = (f.allowed_caller_ids ?? '').split(/\r?\n/).map((s) => s.trim()).filter(Boolean);
  body.allowed_caller_ids = ids.length ? ids : null;
  if (withTransport) body.transport = f.transport ?? 'tcp';
  return body;
}

export type TrunkFormResult =
  | { ok: true; transport: Transport; settings: Partial<TrunkSettings> }
  | { ok: false; errors: FieldErrors };

export function readTrunkForm(f: FormValues, mode: 'create' | 'update'): TrunkFormResult {
  const body = bodyOf(f, mode === 'create');
  const validate = mode === 'create' ? validateCreate : validateUpdate;
  if (!validate(body)) return { ok: false, errors: fieldErrorsFromAjv(validate.errors ?? []) };
  const settings: Record<string, unknown> = {};
  for (const name of SETTING_COLUMNS) settings[name] = body[name];
  return { ok: true, transport: (body.transport ?? 'tcp') as Transport, settings: settings as Partial<TrunkSettings> };
}
