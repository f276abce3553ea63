// A phone number's settings (the spec's "Phone number settings" table), their defaults and their validation.
// Validation returns messages keyed by field so the dashboard can show each next to its input.
import { checkCustomerUrl, customerUrlProblem, type CustomerUrlRule } from '../net/customer-url.js';
import { NAME_LIMITS, nameProblem } from '../names/index.js';
import type { FieldErrors } from '../field-errors.js';

export const WEEKDAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const;
export type Weekday = (typeof WEEKDAYS)[number];

export interface TimeRange { start: string; end: string }
export interface Schedule { timezone: string; weekly: Partial<Record<Weekday, TimeRange[]>> }

export type AfterHours =
  | { action: 'hangup' }
  | { action: 'voicemail' }
  | { action: 'forward'; number: string }
  | { action: 'webhook'; url: string };

export type IvrKeyAction =
  | { action: 'forward'; number: string }
  | { action: 'voicemail' }
  | { action: 'queue'; queue: string }
  | { action: 'hangup' }
  | { action: 'replay' };

export interface IvrMenu {
  enabled: boolean;
  prompt: string;
  keys: Record<string, IvrKeyAction>;
  timeout_seconds: number;
}

export interface RecordingPolicy {
  mode: 'off' | 'from-answer' | 'from-ringing';
  tracks: 'inbound' | 'outbound' | 'both';
  callback_url: string | null;
  immutable: boolean;
}

export interface NumberSettings {
  webhook_url: string | null;
  /** Asked (POST) when webhook_url, or an action URL of the call, does not answer or answers 5xx. */
  fallback_url: string | null;
  /**
   * Asked (POST) when one side of a bridged <Dial> asks for a blind transfer (SIP REFER); its document runs for the
   * other side. Without it such transfers are declined (603).
   */
  refer_url: string | null;
  response_format: 'xml' | 'json';
  hangup_url: string | null;
  client_ref: string | null;
  active: boolean;
  schedule: Schedule | null;
  after_hours: AfterHours;
  ivr: IvrMenu | null;
  recording: RecordingPolicy;
}

export const DEFAULT_NUMBER_SETTINGS: NumberSettings = {
  webhook_url: null,
  fallback_url: null,
  refer_url: null,
  response_format: 'xml',
  hangup_url: null,
  client_ref: null,
  active: true,
  schedule: null,
  after_hours: { action: 'hangup' },
  ivr: null,
  recording: { mode: 'off', tracks: 'both', callback_url: null, immutable: false },
};

export const E164 = /^\+[1-9]\d{1,14}$/;
const HHMM = /^([01]\d|2[0-3]):[0-5]\d$|^24:00$/;
const IVR_KEYS = /^[0-9*#]$/;

class Collector {
  constructor(readonly urls: CustomerUrlRule) {}
  readonly errors: FieldErrors = {};
  add(field: string, message: string): void { (this.errors[field] ??= []).push(message); }
}


export function isValidTimezone(tz: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: tz });
    return tz.length > 0;
  } catch {
    return false;
  }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function checkUrl(c: Collector, field: string, v: unknown, nullable: boolean): void {
  if (v === null && nullable) return;
  if (typeof v !== 'string' || v.length > 2048) return c.add(field, 'Must be an https URL of up to 2048 characters.');
  const check = checkCustomerUrl(v, c.urls);
  if (!check.ok) c.add(field, customerUrlProblem(field, check));
}

/** The one name rule (src/names), said as this file's messages are: a sentence without the field's name. */
function checkName(c: Collector, field: string, v: unknown, maxChars: number): void {
  const problem = typeof v === 'string' ? nameProblem(v, maxChars) : 'must be text';
  if (problem) c.add(field, `${problem.charAt(0).toUpperCase()}${problem.slice(1)}.`);
}

function checkE164(c: Collector, field: string, v: unknown): void {
  if (typeof v !== 'string' || !E164.test(v)) c.add(field, 'Must be an E.164 number such as +14155550100.');
}

function checkSchedule(c: Collector, v: unknown): void {
  if (v === null) return;
  if (!isObject(v)) return c.add('schedule', 'Must be an object with timezone and weekly hours, or null for always open.');
  if (typeof v.timezone !== 'string' || !isValidTimezone(v.timezone)) c.add('schedule.timezone', 'Must be an IANA time zone such as Europe/London.');
  if (!isObject(v.weekly)) return c.add('schedule.weekly', 'Must map weekdays (mon..sun) to lists of {start, end} times.');
  for (const [day, ranges] of Object.entries(v.weekly)) {
    const field = `schedule.weekly.${day}`;
    if (!(WEEKDAYS as readonly string[]).includes(day)) { c.add(field, 'Unknown weekday; use mon, tue, wed, thu, fri, sat or sun.'); continue; }
    if (!Array.isArray(ranges)) { c.add(field, 'Must be a list of {start, end} times.'); continue; }
    ranges.forEach((r: unknown, i) => {
      if (!isObject(r) || typeof r.start !== 'string' || typeof r.end !== 'string' || !HHMM.test(r.start) || !HHMM.test(r.end)) {
        c.add(`${field}.${i}`, 'Times must be HH:MM (00:00 to 24:00).');
      } else if (r.start >= r.end) {
        c.add(`${field}.${i}`, 'The end time must be after the start time.');
      }
    });
  }
}

function checkAfterHours(c: Collector, v: unknown): void {
  if (!isObject(v)) return c.add('after_hours', 'Must be an object with an action.');
  switch (v.action) {
    case 'hangup': case 'voicemail': return;
    case 'forward': return checkE164(c, 'after_hours.number', v.number);
    case 'webhook': return checkUrl(c, 'after_hours.url', v.url, false);
    default: c.add('after_hours.action', 'Must be one of: hangup, voicemail, forward, webhook.');
  }
}

function checkIvrAction(c: Collector, field: string, v: unknown): void {
  if (!isObject(v)) return c.add(field, 'Must be an object with an action.');
  switch (v.action) {
    case 'voicemail': case 'hangup': case 'replay': return;
    case 'forward': return checkE164(c, `${field}.number`, v.number);
    case 'queue':
      return checkName(c, `${field}.queue`, v.queue, NAME_LIMITS.queue);
    default: c.add(`${field}.action`, 'Must be one of: forward, voicemail, queue, hangup, replay.');
  }
}

function checkIvr(c: Collector, v: unknown): void {
  if (v === null) return;
  if (!isObject(v)) return c.add('ivr', 'Must be an object or null.');
  if (typeof v.enabled !== 'boolean') c.add('ivr.enabled', 'Must be true or false.');
  if (typeof v.prompt !== 'string' || v.prompt.trim() === '' || v.prompt.length > 1000) c.add('ivr.prompt', 'Enter the prompt callers hear (1 to 1000 characters).');
  if (typeof v.timeout_seconds !== 'number' || !Number.isInteger(v.timeout_seconds) || v.timeout_seconds < 1 || v.timeout_seconds > 60) {
    c.add('ivr.timeout_seconds', 'Must be a whole number of seconds from 1 to 60.');
  }
  if (!isObject(v.keys) || Object.keys(v.keys).length === 0) return c.add('ivr.keys', 'Define at least one key.');
  for (const [key, action] of Object.entries(v.keys)) {
    if (!IVR_KEYS.test(key)) c.add(`ivr.keys.${key}`, 'Keys are single digits, * or #.');
    else checkIvrAction(c, `ivr.keys.${key}`, action);
  }
}

function checkRecording(c: Collector, v: unknown): void {
  if (!isObject(v)) return c.add('recording', 'Must be an object.');
  if (!['off', 'from-answer', 'from-ringing'].includes(v.mode as string)) c.add('recording.mode', 'Must be one of: off, from-answer, from-ringing.');
  if (!['inbound', 'outbound', 'both'].includes(v.tracks as string)) c.add('recording.tracks', 'Must be one of: inbound, outbound, both.');
  checkUrl(c, 'recording.callback_url', v.callback_url, true);
  if (typeof v.immutable !== 'boolean') c.add('recording.immutable', 'Must be true or false.');
}

const CHECKS: Record<keyof NumberSettings, (c: Collector, v: unknown) => void> = {
  webhook_url: (c, v) => checkUrl(c, 'webhook_url', v, true),
  fallback_url: (c, v) => checkUrl(c, 'fallback_url', v, true),
  refer_url: (c, v) => checkUrl(c, 'refer_url', v, true),
  response_format: (c, v) => { if (v !== 'xml' && v !== 'json') c.add('response_format', 'Must be xml or json.'); },
  hangup_url: (c, v) => checkUrl(c, 'hangup_url', v, true),
  client_ref: (c, v) => { if (v !== null) checkName(c, 'client_ref', v, NAME_LIMITS.numberReference); },
  active: (c, v) => { if (typeof v !== 'boolean') c.add('active', 'Must be true or false.'); },
  schedule: checkSchedule,
  after_hours: checkAfterHours,
  ivr: checkIvr,
  recording: checkRecording,
};

/**
 * Applies a partial change to current settings. Top-level fields replace wholesale (a new schedule replaces the
 * old one). Unknown fields are reported, not ignored, because a typo here silently changes call routing.
 */
export function applySettings(current: NumberSettings, patch: unknown, urls: CustomerUrlRule):
  { ok: true; settings: NumberSettings } | { ok: false; errors: FieldErrors } {
  const c = new Collector(urls);
  if (!isObject(patch)) return { ok: false, errors: { settings: ['Must be an object.'] } };
  for (const [field, value] of Object.entries(patch)) {
    const check = CHECKS[field as keyof NumberSettings];
    if (!check) c.add(field, 'Unknown setting.');
    else check(c, value);
  }
  if (Object.keys(c.errors).length > 0) return { ok: false, errors: c.errors };
  return { ok: true, settings: { ...current, ...(patch as Partial<NumberSettings>) } };
}
