// Where a caller's answer to a speech <Gather> begins and ends, read from the call's audio frame by frame (the
// answering-machine detector's voice activity, src/media/voice-activity.ts): speech begins with the first speech
// frame; it ends after `speechEndMs` of silence, or at `maxSpeechMs`. Time is counted in frames of audio, so a slow
// machine does not cut a caller short. How long to wait for speech to begin is the Gather's (its digit timeout).
import { AUDIO_FRAME_MS } from '../engine/port.js';
import { decodeUlaw } from '../media/mulaw.js';
import { VoiceActivity } from '../media/voice-activity.js';

/** Audio kept from before the first speech frame: a word's soft start is below the speech threshold. */
const LEAD_IN_MS = 300;

export interface EndpointSettings {
  /** Silence after speech that ends it. */
  speechEndMs: number;
  /** The longest answer heard; the rest is cut. */
  maxSpeechMs: number;
}

/** What the caller said, from just before the first speech frame to the end. */
export interface Endpoint { frames: Buffer[] }

export class SpeechEndpointer {
  readonly #vad = new VoiceActivity();
  readonly #lead: Buffer[] = [];
  #heard: Buffer[] | null = null;
  #silentMs = 0;

  constructor(private readonly s: EndpointSettings) {}

  /** Feeds one frame; returns what was heard once it is decided, else null. `started` is true on speech's first frame. */
  push(frame: Buffer): { endpoint: Endpoint | null; started: boolean } {
    const speech = this.#vad.push(decodeUlaw(frame));
    if (this.#heard === null) {
      if (!speech) {
        this.#lead.push(frame);
        if (this.#lead.length > LEAD_IN_MS / AUDIO_FRAME_MS) this.#lead.shift();
        return { endpoint: null, started: false };
      }
      this.#heard = [...this.#lead, frame];
      return { endpoint: null, started: true };
    }
    this.#heard.push(frame);
    this.#silentMs = speech ? 0 : this.#silentMs + AUDIO_FRAME_MS;
    const ended = this.#silentMs >= this.s.speechEndMs || this.#heard.length * AUDIO_FRAME_MS >= this.s.maxSpeechMs;
    return { endpoint: ended ? { frames: this.#heard } : null, started: false };
  }
}
