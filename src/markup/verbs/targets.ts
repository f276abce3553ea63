/**
 * The nouns a call can be connected to. Each is described once and read through `Fields`, so
 * `<Number sendDigits="1">+1555…</Number>` and `{"type":"number","number":"+1555…","sendDigits":"1"}`
 * share one definition.
 */
import type { Fields } from '../fields.js';
import { DIAL_MACHINE_DETECTION, type ConferenceEventName, type Detected, type DialTarget, type Screened } from '../types.js';
import { EXPECT, isCallSid, isClientIdentity, isConferenceEvents, isConferenceName, isCredential, isE164, isQueueName, isSendDigits, isSipUri, isUrlReference } from '../values.js';
import { compact } from './define.js';

export interface TargetKind {
  type: DialTarget['type'];
  xmlName: string;
  /** Builds the target from an already-validated main value (JSON shortcut such as `"number": "+1…"`). */
  fromValue(value: string): DialTarget;
  check: (value: string) => boolean;
  expect: string;
  read(f: Fields): DialTarget;
}

const CREDENTIAL = { check: isCredential, expect: '1-128 printable characters' };
const NUMBER = { check: isE164, expect: EXPECT.e164 };
const SIP_URI = { check: isSipUri, expect: EXPECT.sipUri };
const IDENTITY = { check: isClientIdentity, expect: EXPECT.client };

const URL_REF = { check: isUrlReference, expect: EXPECT.urlRef };

/** A screening document (`url`, its `method` only with it): run on the party once it answers, before the bridge. */
function screening(f: Fields): Screened {
  const url = f.string('url', URL_REF);
  const method = f.method();
  return url === undefined ? {} : { url, method };
}

/** Answering-machine detection on a dialled party (`machineDetectionTimeout` only with `machineDetection`). */
function detection(f: Fields): Detected {
  const machineDetection = f.oneOf('machineDetection', DIAL_MACHINE_DETECTION, undefined);
  const machineDetectionTimeout = f.optionalInt('machineDetectionTimeout', 3, 59);
  if (machineDetectionTimeout !== undefined && machineDetection === undefined) {
    f.invalid('machineDetectionTimeout', 'given with machineDetection', machineDetectionTimeout);
  }
  return compact({ machineDetection, machineDetectionTimeout });
}

const number: TargetKind = {
  type: 'number',
  xmlName: 'Number',
  fromValue: (value) => ({ type: 'number', number: value }),
  ...NUMBER,
  read: (f) =>
    compact({
      type: 'number' as const,
      number: f.content('number', NUMBER),
      sendDigits: f.string('sendDigits', { check: isSendDigits, expect: EXPECT.sendDigits }),
      ...screening(f),
      ...detection(f),
    }),
};

const sip: TargetKind = {
  type: 'sip',
  xmlName: 'Sip',
  fromValue: (value) => ({ type: 'sip', uri: value }),
  ...SIP_URI,
  read: (f) =>
    compact({
      type: 'sip' as const,
      uri: f.content('uri', SIP_URI),
      username: f.string('username', CREDENTIAL),
      password: f.string('password', CREDENTIAL),
      ...screening(f),
      ...detection(f),
    }),
};

const client: TargetKind = {
  type: 'client',
  xmlName: 'Client',
  fromValue: (value) => ({ type: 'client', identity: value }),
  ...IDENTITY,
  read: (f) => ({ type: 'client', identity: f.content('identity', IDENTITY), ...screening(f) }),
};

const CONFERENCE_NAME = { check: isConferenceName, expect: EXPECT.conferenceName };
const EVENTS = { check: isConferenceEvents, expect: EXPECT.conferenceEvents };

/** `statusCallbackEvent`: space-separated in XML; JSON also takes a real array (`["join", "leave"]`). */
function conferenceEvents(f: Fields): ConferenceEventName[] | undefined {
  const raw = f.take('statusCallbackEvent');
  if (f.dialect === 'json' && Array.isArray(raw)) {
    // Each item one name, so ["start end"] does not pass as two.
    const names = raw.every((e) => typeof e === 'string' && /^\S+$/.test(e.trim())) ? raw.map((e: string) => e.trim()) : [];
    if (isConferenceEvents(names.join(' '))) return names as ConferenceEventName[];
    f.invalid('statusCallbackEvent', EXPECT.conferenceEventArray, raw);
    return undefined;
  }
  return f.string('statusCallbackEvent', EVENTS)?.split(/\s+/) as ConferenceEventName[] | undefined;
}

/** Twilio's defaults: joins unmuted with beeps, starts the conference, does not end it, room for 250. */
const conference: TargetKind = {
  type: 'conference',
  xmlName: 'Conference',
  fromValue: (value) => ({
    type: 'conference', name: value, muted: false, beep: 'true', startConferenceOnEnter: true, endConferenceOnExit: false,
    waitMethod: 'POST', maxParticipants: 250, record: 'do-not-record', statusCallbackMethod: 'POST', statusCallbackEvent: [],
  }),
  ...CONFERENCE_NAME,
  read: (f) => {
    const statusCallback = f.string('statusCallback', URL_REF);
    const events = conferenceEvents(f);
    return compact({
      type: 'conference' as const,
      name: f.content('name', CONFERENCE_NAME),
      muted: f.bool('muted', false),
      beep: f.oneOf('beep', ['true', 'false', 'onEnter', 'onExit'] as const, 'true'),
      startConferenceOnEnter: f.bool('startConferenceOnEnter', true),
      endConferenceOnExit: f.bool('endConferenceOnExit', false),
      waitUrl: f.string('waitUrl', URL_REF),
      waitMethod: f.method('waitMethod'),
      maxParticipants: f.int('maxParticipants', 2, 250, 250),
      record: f.oneOf('record', ['do-not-record', 'record-from-start'] as const, 'do-not-record'),
      statusCallback,
      statusCallbackMethod: f.method('statusCallbackMethod'),
      // As Twilio: a callback URL without a list hears the conference's start and end.
      statusCallbackEvent: events ?? (statusCallback ? ['start', 'end'] : []),
      coach: f.string('coach', { check: isCallSid, expect: EXPECT.callSid }),
    });
  },
};

const QUEUE_NAME = { check: isQueueName, expect: EXPECT.queueName };

/** Its `url` (Twilio's): a document played to the dequeued caller alone before the two are connected. */
const queue: TargetKind = {
  type: 'queue',
  xmlName: 'Queue',
  fromValue: (value) => ({ type: 'queue', name: value }),
  ...QUEUE_NAME,
  read: (f) => compact({ type: 'queue' as const, name: f.content('name', QUEUE_NAME), ...screening(f) }),
};

export const TARGET_KINDS: readonly TargetKind[] = [number, sip, client, conference, queue];

export const MAX_TARGETS = 10;
