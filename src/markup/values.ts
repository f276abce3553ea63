/**
 * Value checks shared by the XML and JSON readers. Each returns a boolean so that callers can
 * pair it with a human description of what was expected (see fields.ts).
 */

import { isName, NAME_LIMITS } from '../names/index.js';
import { splitSipUriHeaders } from '../net/sip-uri-headers.js';

export const MAX_URL_LENGTH = 2048;

const CONTROL_OR_SPACE = /[\u0000-\u0020\u007f-\u009f]/;
const SCHEME = /^[A-Za-z][A-Za-z0-9+.-]*:/;

export function isE164(value: string): boolean {
  return /^\+[1-9]\d{1,14}$/.test(value);
}

export function isHttpUrl(value: string): boolean {
  if (value.length === 0 || value.length > MAX_URL_LENGTH || CONTROL_OR_SPACE.test(value)) return false;
  if (!/^https?:\/\//i.test(value)) return false;
  try {
    const url = new URL(value);
    return (url.protocol === 'http:' || url.protocol === 'https:') && url.hostname.length > 0;
  } catch {
    return false;
  }
}

/**
 * Callback targets may be relative to the document URL (the interpreter resolves them), but a
 * relative reference must not smuggle in another scheme such as `javascript:` or `file:`.
 */
export function isUrlReference(value: string): boolean {
  if (isHttpUrl(value)) return true;
  if (value.length === 0 || value.length > MAX_URL_LENGTH || CONTROL_OR_SPACE.test(value)) return false;
  if (SCHEME.test(value)) return false;
  try {
    new URL(value, 'http://document.invalid/');
    return true;
  } catch {
    return false;
  }
}

const SIP_URI =
  /^sips?:(?:[^@\s<>"]{1,256}@)?(?:\[[0-9A-Fa-f:.]{2,45}\]|[A-Za-z0-9](?:[A-Za-z0-9.-]{0,251}[A-Za-z0-9])?)(?::\d{1,5})?(?:[;?][^\s<>"]*)?$/;

/** A sip:/sips: URI; anything after `?` must be X- headers (sip-uri-headers.ts). */
export function isSipUri(value: string): boolean {
  return value.length <= 512 && SIP_URI.test(value) && splitSipUriHeaders(value).ok;
}

export function isCallSid(value: string): boolean {
  return /^CA[0-9a-f]{32}$/.test(value);
}

/** Space-separated conference event names (start end join leave mute hold), each at most once. */
export function isConferenceEvents(value: string): boolean {
  const names = value.trim().split(/\s+/);
  return value.trim() !== '' && names.every((n) => ['start', 'end', 'join', 'leave', 'mute', 'hold'].includes(n)) && new Set(names).size === names.length;
}

export function isDtmfKey(value: string): boolean {
  return /^[0-9*#]$/.test(value);
}

/** A set of finish keys: each key at most once, empty allowed (disables the feature). */
export function isDtmfKeySet(value: string): boolean {
  return /^[0-9*#]{0,12}$/.test(value) && new Set(value).size === value.length;
}

/** `w` / `W` are TwiML's half-second / one-second waits between digits. */
export function isSendDigits(value: string): boolean {
  return /^[0-9*#wW]{1,32}$/.test(value);
}

export function isClientIdentity(value: string): boolean {
  return /^[A-Za-z0-9_.@-]{1,128}$/.test(value);
}

/** A voice (or model) name as markup carries it. */
export const VOICE_NAME = /^[A-Za-z0-9._-]{1,64}$/;

export function isVoiceName(value: string): boolean {
  return VOICE_NAME.test(value);
}

export function isLanguageTag(value: string): boolean {
  return value.length <= 35 && /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{1,8})*$/.test(value);
}

/** Free-form credentials: printable, bounded, no control characters. */
export function isCredential(value: string): boolean {
  return value.length >= 1 && value.length <= 128 && !/[\u0000-\u001f\u007f]/.test(value);
}

/** Conference and queue names follow the platform's one name rule (src/names), as the API's do. */
export const isConferenceName = (value: string): boolean => isName(value, NAME_LIMITS.conference);
export const isQueueName = (value: string): boolean => isName(value, NAME_LIMITS.queue);
export const isStreamName = (value: string): boolean => isName(value, NAME_LIMITS.stream);
const NAME_RULE = (max: number) => `1-${max} characters of visible text on one line, without control, bidirectional or invisible characters, / or \\`;

/** Shared wording so that the same kind of value is described identically in every message. */
export const EXPECT = {
  httpUrl: 'an absolute http(s) URL',
  urlRef: 'an http(s) URL or a path relative to the document',
  e164: 'an E.164 number such as +15551234567',
  sipUri: 'a sip: or sips: URI (after ?, only X- headers: ?X-Name=value&X-Other=value)',
  client: 'a client identity (1-128 letters, digits, "_", ".", "@" or "-")',
  sendDigits: 'up to 32 of 0-9, *, #, w and W',
  conferenceName: `a conference name (${NAME_RULE(NAME_LIMITS.conference)})`,
  queueName: `a queue name (${NAME_RULE(NAME_LIMITS.queue)})`,
  streamName: `a stream name (${NAME_RULE(NAME_LIMITS.stream)})`,
  callSid: 'a call sid (CA followed by 32 hex digits)',
  conferenceEvents: 'space-separated conference events: start, end, join, leave, mute, hold',
  conferenceEventArray: 'an array of distinct conference events: start, end, join, leave, mute, hold',
} as const;
