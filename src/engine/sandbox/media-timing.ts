// How long simulated media and simulated people take. Durations are deliberately simple and fixed so tests
// can compute exact clock times.
import type { Prompt, SayOptions } from '../port.js';
import type { TranscriptEntry } from './transcript.js';
import { sendDigitsMs } from '../send-digits.js';

/** A typical TTS voice speaks roughly 15 characters a second. */
export const SAY_MS_PER_CHAR = 60;
export const SAY_MIN_MS = 300;
/** Simulated playback does not read the file, so every play lasts the same. */
export const PLAY_MS = 2000;
export const BEEP_MS = 300;

/** Simulated people: when the far end starts ringing, how long it rings by default, how fast callers react. */
export const RINGING_AFTER_MS = 100;
export const DEFAULT_RING_MS = 1000;
export const GATHER_REACTION_MS = 100;
export const KEY_INTERVAL_MS = 50;
/** How soon into the prompts a scripted caller barging in starts to speak. */
export const BARGE_IN_MS = 300;
export const DEFAULT_SPEAK_MS = 3000;

/** A piece of media as the far end experiences it: what they hear and for how long. */
export interface Media { heard: TranscriptEntry; ms: number }

export function sayMs(text: string): number { return Math.max(SAY_MIN_MS, text.length * SAY_MS_PER_CHAR); }

export function sayMedia(text: string, { voice, language }: SayOptions): Media {
  return { heard: { type: 'heard-say', text, voice, language }, ms: sayMs(text) };
}

export function playMedia(url: string): Media { return { heard: { type: 'heard-play', url }, ms: PLAY_MS }; }

export function keysMedia(digits: string): Media { return { heard: { type: 'heard-keys', digits }, ms: sendDigitsMs(digits) }; }

export function pauseMedia(ms: number): Media { return { heard: { type: 'heard-pause', ms }, ms: Math.max(0, ms) }; }

/** Ringback loops until stopped: an hour stands for "until the Dial is over". */
export function ringbackMedia(tone: string): Media { return { heard: { type: 'heard-ringback', tone }, ms: 3_600_000 }; }

export const beepMedia: Media = { heard: { type: 'beep' }, ms: BEEP_MS };

export function promptMedia(prompt: Prompt): Media {
  switch (prompt.kind) {
    case 'say': return sayMedia(prompt.text, prompt);
    case 'play': return playMedia(prompt.media.source);
    case 'pause': return pauseMedia(prompt.seconds * 1000);
  }
}
