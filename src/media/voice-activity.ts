// Speech or not, frame by frame, on audio whose level and background noise are unknown: a frame is speech when it
// stands well above the noise floor (the quietest frame of the last 1.5 s: the gaps between words reach down to it,
// steady noise never goes below it) and above an absolute floor, with a short hangover so a word's quiet consonants
// do not split it.

/** Frames in the noise floor's window: 1.5 s of 20 ms frames. */
const FLOOR_FRAMES = 75;
/** How far above the noise floor speech stands. */
const ABOVE_FLOOR_DB = 9;
/** Nothing quieter is speech, however quiet the line (dBFS). */
const ABSOLUTE_DB = -48;
/** Frames that still count as speech after the level drops. */
const HANGOVER_FRAMES = 3;

/** A frame's level in dB relative to full scale. */
export function levelDb(frame: Float32Array): number {
  let sum = 0;
  for (const x of frame) sum += x * x;
  return 10 * Math.log10(sum / Math.max(1, frame.length) + 1e-12);
}

export class VoiceActivity {
  readonly #recent: number[] = [];
  #hangover = 0;

  /** Whether this frame is speech. */
  push(frame: Float32Array): boolean {
    const db = levelDb(frame);
    this.#recent.push(db);
    if (this.#recent.length > FLOOR_FRAMES) this.#recent.shift();
    const floor = Math.min(...this.#recent);
    if (db >= ABSOLUTE_DB && db >= floor + ABOVE_FLOOR_DB) {
      this.#hangover = HANGOVER_FRAMES;
      return true;
    }
    if (this.#hangover > 0) {
      this.#hangover--;
      return true;
    }
    return false;
  }
}
