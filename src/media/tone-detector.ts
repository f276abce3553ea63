// Single tones in 20 ms frames of 8 kHz audio: a voicemail's beep, a fax machine's answer tone. A frame is tonal when
// one frequency holds most of its energy: the frequency is read from the frame's zero crossings (interpolated between
// samples), then confirmed by the share of the frame's energy a Goertzel filter finds at exactly that frequency.
// Speech never holds one frequency that long: its energy spreads over a pitch's harmonics and moving formants.

export const SAMPLE_RATE = 8000;

/** Share of `samples`' energy at `hz` (Goertzel): 1 for a pure tone at that frequency, near 0 for speech or noise. */
export function toneShare(samples: Float32Array, hz: number, sampleRate = SAMPLE_RATE): number {
  const n = samples.length;
  const k = 2 * Math.cos((2 * Math.PI * hz) / sampleRate);
  let s1 = 0;
  let s2 = 0;
  let energy = 0;
  for (const x of samples) {
    const s0 = x + k * s1 - s2;
    s2 = s1;
    s1 = s0;
    energy += x * x;
  }
  const power = s1 * s1 + s2 * s2 - k * s1 * s2;
  return energy === 0 ? 0 : (2 * power) / (n * energy);
}

/** The frequency of `frame` from its zero crossings, placed between samples; null with fewer than 3 crossings. */
export function crossingFrequency(frame: Float32Array, sampleRate = SAMPLE_RATE): number | null {
  let first = -1;
  let last = -1;
  let count = 0;
  for (let i = 1; i < frame.length; i++) {
    const a = frame[i - 1]!;
    const b = frame[i]!;
    if ((a < 0) === (b < 0)) continue;
    const at = i - 1 + a / (a - b);
    if (first < 0) first = at;
    last = at;
    count++;
  }
  return count < 3 ? null : ((count - 1) / 2) * (sampleRate / (last - first));
}

/** Tones outside this band are not beeps (mains hum, a fax's high carriers are still inside it). */
const LOWEST_HZ = 300;
const HIGHEST_HZ = 3400;
/** The share of a frame's energy at one frequency that makes it tonal. */
const TONAL_SHARE = 0.8;

/** The frame's tone, or null when no single frequency dominates it (speech, noise, silence). */
export function frameTone(frame: Float32Array): number | null {
  const hz = crossingFrequency(frame);
  if (hz === null || hz < LOWEST_HZ || hz > HIGHEST_HZ) return null;
  return toneShare(frame, hz) >= TONAL_SHARE ? hz : null;
}

/** A run of tonal frames at one frequency: when it started, how long it has lasted, its mean frequency. */
export interface ToneRun { startMs: number; ms: number; hz: number }

/** Consecutive frames within this of the run's frequency continue it. */
const SAME_TONE_HZ = 25;

/**
 * Follows tone runs frame by frame. `push` gives the run that ended with this frame (the first frame not continuing
 * it), if any; `current` is the run under way.
 */
export class ToneTracker {
  #run: ToneRun | null = null;
  #sum = 0;

  get current(): ToneRun | null {
    return this.#run;
  }

  push(frame: Float32Array, atMs: number, frameMs: number): ToneRun | null {
    const hz = frameTone(frame);
    const run = this.#run;
    if (hz !== null && run && Math.abs(hz - run.hz) <= SAME_TONE_HZ) {
      this.#sum += hz;
      run.ms += frameMs;
      run.hz = this.#sum / (run.ms / frameMs);
      return null;
    }
    this.#run = hz === null ? null : { startMs: atMs, ms: frameMs, hz };
    this.#sum = hz ?? 0;
    return run;
  }
}
