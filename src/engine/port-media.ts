// What a leg plays, collects and records, as the engine port (port.ts) speaks of it: spoken and played prompts, digit
// collection, a recording made by the caller's leg, and a recording of the whole call.
import type { LocalMedia } from '../media/local-media.js';

export interface SayOptions {
  voice: string;
  language: string;
  /** The words already rendered by the account's speech endpoint: played as they are, the text kept for transcripts. */
  audio?: LocalMedia;
}

/** A media prompt inside a digit collection. */
export type Prompt =
  | ({ kind: 'say'; text: string } & SayOptions)
  | { kind: 'play'; media: LocalMedia }
  | { kind: 'pause'; seconds: number };

export interface CollectOptions {
  prompts: Prompt[];
  /** Stop after this many digits; undefined = until finishOnKey or timeout. */
  numDigits?: number;
  /** Inter-digit and first-digit timeout. */
  timeoutMs: number;
  /** Any one of these keys ends the input ('' disables it); the key is not part of the returned digits. */
  finishOnKey: string;
}

/** A hang-up during collection returns the digits so far with reason 'timeout'; check the leg's isEnded. */
export interface CollectResult {
  digits: string;
  /** `interrupted`: stopMedia() ended the collection (the keys so far are kept). */
  reason: 'num-digits' | 'finish-key' | 'timeout' | 'interrupted';
}

export interface RecordOptions {
  /** Absolute path of the WAV file to write. */
  file: string;
  /** 0 or less: no limit. */
  maxLengthMs: number;
  /** Stop after this much silence; 0 or less: no limit. */
  silenceTimeoutMs: number;
  /** Keys that end the recording ('' = none). */
  finishOnKey: string;
  beep: boolean;
}

export interface RecordResult {
  file: string;
  durationMs: number;
  /** `interrupted`: stopMedia() ended the recording; the file holds what was recorded until then. */
  reason: 'max-length' | 'silence' | 'finish-key' | 'hangup' | 'interrupted';
  finishKey?: string;
}

export type RecordingTracks = 'inbound' | 'outbound' | 'both';

export interface CallRecordingOptions {
  file: string;
  tracks: RecordingTracks;
  /** With tracks 'both': each side on its own channel (2 channels) instead of mixed (1 channel). */
  dualChannel: boolean;
}

/** A recording of a whole call, controllable while the call lasts. */
export interface CallRecording {
  readonly file: string;
  readonly channels: 1 | 2;
  pause(): Promise<void>;
  resume(): Promise<void>;
  /** Finishes the file; resolves with the recorded duration (paused time excluded). Idempotent. */
  stop(): Promise<{ durationMs: number }>;
}
