// Number settings ↔ the flat fields of the settings form. Conversion only: every rule is checked by
// applySettings (src/numbers/settings.ts), whose field-path messages land next to these inputs.
import { WEEKDAYS, type NumberSettings } from '../../numbers/settings.js';
import type { FormValues } from './forms.js';

export const IVR_KEYS = ['1', '2', '3', '4', '5', '6', '7', '8', '9', '0', '*', '#'] as const;
const DEFAULT_IVR_TIMEOUT = 5;

const orNull = (v: string | undefined) => (v === undefined || v.trim() === '' ? null : v.trim());
const checked = (v: string | undefined) => v === 'on';

export function settingsToForm(s: NumberSettings): FormValues {
  const f: FormValues = {
    webhook_url: s.webhook_url ?? '',
    fallback_url: s.fallback_url ?? '',
    refer_url: s.refer_url ?? '',
    response_format: s.response_format,
    hangup_url: s.hangup_url ?? '',
    client_ref: s.client_ref ?? '',
    active: s.active ? 'on' : '',
    'schedule.enabled': s.schedule ? 'on' : '',
    'schedule.timezone': s.schedule?.timezone ?? 'UTC',
    'after_hours.action': s.after_hours.action,
    'after_hours.number': s.after_hours.action === 'forward' ? s.after_hours.number : '',
    'after_hours.url': s.after_hours.action === 'webhook' ? s.after_hours.url : '',
    'ivr.enabled': s.ivr?.enabled ? 'on' : '',
    'ivr.prompt': s.ivr?.prompt ?? '',
    'ivr.timeout_seconds': String(s.ivr?.timeout_seconds ?? DEFAULT_IVR_TIMEOUT),
    'recording.mode': s.recording.mode,
    'recording.tracks': s.recording.tracks,
    'recording.callback_url': s.recording.callback_url ?? '',
    'recording.immutable': s.recording.immutable ? 'on' : '',
  };
  for (const day of WEEKDAYS) f[`schedule.weekly.${day}`] = (s.schedule?.weekly[day] ?? []).map((r) => `${r.start}-${r.end}`).join(', ');
  for (const [key, a] of Object.entries(s.ivr?.keys ?? {})) {
    f[`ivr.keys.${key}.action`] = a.action;
    f[`ivr.keys.${key}.target`] = a.action === 'forward' ? a.number : a.action === 'queue' ? a.queue : '';
  }
  return f;
}

/** "09:00-12:30, 13:30-17:00" → ranges. Unparseable parts still become ranges, so the validator names them. */
function parseHours(text: string): Array<{ start: string; end: string }> {
  return text.split(/[,;]/).map((p) => p.trim()).filter(Boolean).map((part) => {
    const [start = '', end = ''] = part.split(/\s*[-–—]\s*/);
    return { start: start.trim(), end: end.trim() };
  });
}

function ivrFrom(f: FormValues): unknown {
  const keys: Record<string, unknown> = {};
  for (const key of IVR_KEYS) {
    const action = f[`ivr.keys.${key}.action`] ?? '';
    const target = (f[`ivr.keys.${key}.target`] ?? '').trim();
    if (action === '') continue;
    keys[key] = action === 'forward' ? { action, number: target } : action === 'queue' ? { action, queue: target } : { action };
  }
  const prompt = f['ivr.prompt'] ?? '';
  if (!checked(f['ivr.enabled']) && prompt.trim() === '' && Object.keys(keys).length === 0) return null;
  const timeout = (f['ivr.timeout_seconds'] ?? '').trim();
  return { enabled: checked(f['ivr.enabled']), prompt, timeout_seconds: timeout === '' ? DEFAULT_IVR_TIMEOUT : Number(timeout), keys };
}

function afterHoursFrom(f: FormValues): unknown {
  const action = f['after_hours.action'] ?? 'hangup';
  if (action === 'forward') return { action, number: (f['after_hours.number'] ?? '').trim() };
  if (action === 'webhook') return { action, url: (f['after_hours.url'] ?? '').trim() };
  return { action };
}

/** The whole form as one settings change (every top-level setting, each replaced wholesale). */
export function formToPatch(f: FormValues): Record<string, unknown> {
  const weekly: Record<string, unknown> = {};
  for (const day of WEEKDAYS) {
    const ranges = parseHours(f[`schedule.weekly.${day}`] ?? '');
    if (ranges.length > 0) weekly[day] = ranges;
  }
  return {
    webhook_url: orNull(f.webhook_url),
    fallback_url: orNull(f.fallback_url),
    refer_url: orNull(f.refer_url),
    response_format: f.response_format ?? 'xml',
    hangup_url: orNull(f.hangup_url),
    client_ref: orNull(f.client_ref),
    active: checked(f.active),
    schedule: checked(f['schedule.enabled']) ? { timezone: f['schedule.timezone'] ?? '', weekly } : null,
    after_hours: afterHoursFrom(f),
    ivr: ivrFrom(f),
    recording: {
      mode: f['recording.mode'] ?? 'off',
      tracks: f['recording.tracks'] ?? 'both',
      callback_url: orNull(f['recording.callback_url']),
      immutable: checked(f['recording.immutable']),
    },
  };
}
