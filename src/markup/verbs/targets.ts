/**
 * The nouns a call can be connected to. Each is described once and read through `Fields`, so
 * `<Number sendDigits="1">+1555…</Number>` and `{"type":"number","number":"+1555…","sendDigits":"1"}`
 * share one definition.
 */
import type { Fields } from '../fields.js';
import type { DialTarget } from '../types.js';
import { EXPECT, isClientIdentity, isCredential, isE164, isSendDigits, isSipUri } from '../values.js';
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
    }),
};

const client: TargetKind = {
  type: 'client',
  xmlName: 'Client',
  fromValue: (value) => ({ type: 'client', identity: value }),
  ...IDENTITY,
  read: (f) => ({ type: 'client', identity: f.content('identity', IDENTITY) }),
};

export const TARGET_KINDS: readonly TargetKind[] = [number, sip, client];

export const MAX_TARGETS = 10;
