/**
 * The parsed form of a call-control document: plain, JSON-serialisable objects with every
 * default already applied, so the interpreter never has to know about optional attributes.
 */

import type { RingTone } from './ring-tones.js';

export type MarkupFormat = 'xml' | 'json';
export type HttpMethod = 'GET' | 'POST';

export interface SayVerb {
  verb: 'say';
  text: string;
  voice: string;
  language: string;
  /** 0 = repeat until the call ends (or, inside Gather, until a key is pressed). */
  loop: number;
}

export interface PlayVerb {
  verb: 'play';
  /** Absolute http(s) URL of the audio file. */
  url: string;
  loop: number;
}

export interface PauseVerb {
  verb: 'pause';
  length: number;
}

export type PromptVerb = SayVerb | PlayVerb | PauseVerb;

export type GatherInput = 'dtmf' | 'speech';

/** How a speech Gather hears (docs/markup.md, Gather): set only when input includes speech. */
export interface GatherSpeech {
  /** Words and phrases the caller is likely to say, comma-separated (a recognizer's grammar or prompt). */
  hints?: string;
  language: string;
  /** Silence that ends the caller's speech: 'auto', or whole seconds. */
  speechTimeout: 'auto' | number;
  /** The recognizer's model name, passed to a vendor adapter as given. */
  speechModel?: string;
  /** Ask the action even when nothing was heard or said (Twilio's actionOnEmptyResult). */
  actionOnEmptyResult: boolean;
}

export interface GatherVerb {
  verb: 'gather';
  /** Absolute http(s) URL or a reference relative to the document URL (resolved by the interpreter). */
  action?: string;
  method: HttpMethod;
  /** What the caller may answer with, in the order given ('dtmf' alone unless told). */
  input: GatherInput[];
  numDigits?: number;
  timeout: number;
  /** '' disables the finish key. */
  finishOnKey: string;
  speech?: GatherSpeech;
  prompts: PromptVerb[];
}

export interface RedirectVerb {
  verb: 'redirect';
  url: string;
  method: HttpMethod;
}

export interface EnqueueVerb {
  verb: 'enqueue';
  /** The queue's friendly name (created with the default settings on first use). */
  queue: string;
  /** Audio looped to the caller while waiting (overrides the queue's wait_url); absolute or relative to the document. */
  waitUrl?: string;
  /** Requested when the caller leaves the queue (QueueResult, QueueTime, QueueSid); absolute or relative. */
  action?: string;
  method: HttpMethod;
  /** Seconds before the caller leaves with QueueResult "timeout" (overrides the queue's max_wait_seconds). */
  maxWait?: number;
}

export interface HangupVerb {
  verb: 'hangup';
}

/** In a queue's wait document: the caller leaves the queue and its call goes on after the <Enqueue>. */
export interface LeaveVerb {
  verb: 'leave';
}

export interface RejectVerb {
  verb: 'reject';
  reason: 'rejected' | 'busy';
}

export interface RecordVerb {
  verb: 'record';
  action?: string;
  method: HttpMethod;
  maxLength: number;
  timeout: number;
  finishOnKey: string;
  playBeep: boolean;
  recordingStatusCallback?: string;
  recordingStatusCallbackMethod: HttpMethod;
  /** Transcribe the message (its voicemail-left event then carries the words). */
  transcribe: boolean;
  /** Told the transcript once it is ready (a transcribeCallback alone turns transcribe on, as on Twilio). */
  transcribeCallback?: string;
}

/**
 * `url` (+ `method`, POST by default): a document run on the dialled party once it answers, before the caller is
 * connected (Twilio's screening); a `<Hangup>` there declines it.
 */
export interface Screened {
  url?: string;
  method?: HttpMethod;
}

/** Twilio's machineDetection on a dialled <Number> or <Sip>: answering-machine detection once it answers, before the bridge. */
export const DIAL_MACHINE_DETECTION = ['Enable', 'DetectMessageEnd'] as const;

export interface Detected {
  machineDetection?: (typeof DIAL_MACHINE_DETECTION)[number];
  /** Seconds detection may take (3–59; default 30). */
  machineDetectionTimeout?: number;
}

export interface NumberTarget extends Screened, Detected {
  type: 'number';
  number: string;
  sendDigits?: string;
}

export interface SipTarget extends Screened, Detected {
  type: 'sip';
  uri: string;
  username?: string;
  password?: string;
}

export interface ClientTarget extends Screened {
  type: 'client';
  identity: string;
}

/** Twilio's names for the conference events a status callback may subscribe to. */
export type ConferenceEventName = 'start' | 'end' | 'join' | 'leave' | 'mute' | 'hold';

/** `<Dial><Conference>`: the caller joins a conference by name (the only noun of its Dial). */
export interface ConferenceTarget {
  type: 'conference';
  name: string;
  muted: boolean;
  beep: 'true' | 'false' | 'onEnter' | 'onExit';
  startConferenceOnEnter: boolean;
  endConferenceOnExit: boolean;
  /** Audio (WAV or MP3) looped to this caller until the conference starts. */
  waitUrl?: string;
  waitMethod: HttpMethod;
  maxParticipants: number;
  record: 'do-not-record' | 'record-from-start';
  statusCallback?: string;
  statusCallbackMethod: HttpMethod;
  statusCallbackEvent: ConferenceEventName[];
  /** The call sid of a participant this caller coaches (heard only by them). */
  coach?: string;
}

/** <Dial><Queue>: the first caller waiting in the queue is connected to this call (Twilio's dequeue). */
export interface QueueTarget extends Screened {
  type: 'queue';
  /** The queue's friendly name. */
  name: string;
}

export type DialTarget = NumberTarget | SipTarget | ClientTarget | ConferenceTarget | QueueTarget;

export type DialRecord = 'do-not-record' | 'record-from-answer' | 'record-from-ringing';

export interface DialVerb {
  verb: 'dial';
  callerId?: string;
  timeout: number;
  action?: string;
  method: HttpMethod;
  record: DialRecord;
  /** Seconds the bridged call may last: then the dialled party is hung up and the caller's document goes on. */
  timeLimit?: number;
  /** The country whose ringback the caller hears while the targets ring (Twilio's ringTone; default us). */
  ringTone: RingTone;
  /** The caller ends the bridge by pressing * (the dialled party is hung up) and the document goes on. */
  hangupOnStar: boolean;
  /** A caller not answered yet is answered only when a target answers, hearing ringback as early media until then. */
  answerOnBridge: boolean;
  targets: DialTarget[];
}

/** A blind transfer of the caller's side (SIP REFER): `target` goes in Refer-To; `action` hears the outcome. */
export interface ReferVerb {
  verb: 'refer';
  target: string;
  action?: string;
  method: HttpMethod;
}

export type StreamTrack = 'inbound_track' | 'outbound_track' | 'both_tracks';

export interface StreamParameter { name: string; value: string }

/** A media stream to a WebSocket peer (Twilio Media Streams protocol). */
export interface StreamNoun {
  /** wss:// (ws:// to loopback under the development flag). */
  url: string;
  name?: string;
  /** Always inbound_track inside <Connect>. */
  track: StreamTrack;
  statusCallback?: string;
  statusCallbackMethod: HttpMethod;
  parameters: StreamParameter[];
}

/** `<Connect><Stream>`: bidirectional; ends when the peer closes, then `action` (if any) gives the next document. */
export interface ConnectVerb {
  verb: 'connect';
  action?: string;
  method: HttpMethod;
  stream: StreamNoun;
}

/** `<Start><Stream>`: a listen-only fork; the call goes on with the next verb. */
export interface StartVerb {
  verb: 'start';
  stream: StreamNoun;
}

/** `<Stop><Stream name>`: ends the fork started under that name. */
export interface StopVerb {
  verb: 'stop';
  name: string;
}

export type Verb =
  | SayVerb
  | PlayVerb
  | GatherVerb
  | PauseVerb
  | RedirectVerb
  | HangupVerb
  | LeaveVerb
  | RejectVerb
  | RecordVerb
  | DialVerb
  | EnqueueVerb
  | ConnectVerb
  | StartVerb
  | StopVerb
  | ReferVerb;
