// What the far end of a simulated call experienced, in order: the assertion surface for tests, the CLI
// `simulate` output and dashboard test calls.
import type { HangupCause, HangupInfo } from '../port.js';

export type TranscriptEntry =
  | { type: 'ringing' }
  /** 183 Session Progress with media: the caller hears the platform before any answer. */
  | { type: 'early-media' }
  | { type: 'answered' }
  | { type: 'rejected'; reason: 'busy' | 'rejected' | 'unavailable' }
  | { type: 'heard-say'; text: string; voice: string; language: string }
  | { type: 'heard-play'; url: string }
  | { type: 'heard-pause'; ms: number }
  | { type: 'heard-ringback'; tone: string }
  | { type: 'referred'; to: string }
  | { type: 'transfer-asked'; to: string }
  | { type: 'transfer-answered'; status: number }
  | { type: 'transfer-reported'; status: number }
  | { type: 'beep' }
  | { type: 'pressed'; digit: string }
  /** Words the far end said (to a speech <Gather>). */
  | { type: 'said'; text: string }
  /** Keys the platform sent this party (<Number sendDigits>), `w` and `W` being waits. */
  | { type: 'heard-keys'; digits: string }
  | { type: 'recording-started' | 'recording-stopped'; file: string }
  | { type: 'bridged'; to: string }
  | { type: 'conference-joined' | 'conference-left'; room: string }
  | { type: 'audio-opened'; mode: 'bidirectional' | 'fork' }
  | { type: 'audio-closed'; mode: 'bidirectional' | 'fork' }
  /** A run of audio a media stream played to the far end: frame count and the SHA-1 of its µ-law bytes. */
  | { type: 'heard-stream'; frames: number; sha1: string }
  /** A media stream's queued audio dropped before it was heard (clear). */
  | { type: 'stream-cleared'; frames: number }
  /** `by` is from the platform's point of view, as in HangupInfo: 'remote' means the simulated party. */
  | { type: 'hangup'; cause: HangupCause; by: HangupInfo['by']; sipStatus?: number };

/** `at`: clock milliseconds since the call arrived (inbound) or was dialled (outbound). */
export type TranscriptEvent = TranscriptEntry & { at: number };

export type TranscriptListener = (event: TranscriptEvent) => void;

export class Transcript {
  readonly #events: TranscriptEvent[] = [];
  readonly #listeners = new Set<TranscriptListener>();

  constructor(private readonly elapsed: () => number) {}

  get events(): readonly TranscriptEvent[] { return this.#events; }

  add(entry: TranscriptEntry): void {
    const event = { ...entry, at: this.elapsed() } as TranscriptEvent;
    this.#events.push(event);
    for (const listener of [...this.#listeners]) listener(event);
  }

  /** Live stream of later events; returns the unsubscribe function. */
  onEvent(listener: TranscriptListener): () => void {
    this.#listeners.add(listener);
    return () => { this.#listeners.delete(listener); };
  }
}
