// What a simulated far end says to a speech <Gather>: speech-like noise (far-end-audio.ts) for as long as the words
// take, each frame remembered with the words it carries, so that the sandbox's recognizer (src/speech) answers with
// exactly what was said. Speech flows are testable without telephony or a recognizer.
import { AUDIO_FRAME_BYTES } from '../port.js';
import { encodeUlaw } from '../../media/mulaw.js';
import { SAMPLE_RATE } from './audio.js';
import { speechSample } from './far-end-audio.js';

/** How long each word takes to say. */
const WORD_MS = 350;
const SAID = new WeakMap<Buffer, string>();

export class FarEndSpeech {
  #text = '';
  #left = 0;
  #at = 0;

  /** Starts saying `text` (replacing whatever was being said). */
  say(text: string): void {
    this.#text = text.trim();
    this.#left = this.#text === '' ? 0 : (this.#text.split(/\s+/).length * WORD_MS * SAMPLE_RATE) / 1000;
  }

  /** The next 20 ms frame of what is being said, or null when nothing is. */
  frame(): Buffer | null {
    if (this.#left <= 0) return null;
    const samples = Float32Array.from({ length: AUDIO_FRAME_BYTES }, (_, k) => speechSample(this.#at + k));
    this.#at += AUDIO_FRAME_BYTES;
    this.#left -= AUDIO_FRAME_BYTES;
    const payload = encodeUlaw(samples);
    SAID.set(payload, this.#text);
    return payload;
  }
}

/** The words the sandbox's far end said in these frames (the first said), or null when none came from it. */
export function spokenText(frames: readonly Buffer[]): string | null {
  for (const frame of frames) {
    const text = SAID.get(frame);
    if (text !== undefined) return text;
  }
  return null;
}
