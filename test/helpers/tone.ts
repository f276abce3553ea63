// Frequency checks on what a caller heard: proves a particular prompt (a pure tone) played, not just "some audio".

/** Share of a window's energy at `hz` (Goertzel): 1 for a pure tone at that frequency, near 0 for speech or noise. */
export function toneShare(samples: Float32Array, hz: number, sampleRate = 8000): number {
  const n = samples.length;
  const k = (2 * Math.cos((2 * Math.PI * hz) / sampleRate));
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

/** The largest tone share over 200 ms windows that are not silence (peak above `floor`). */
export function bestToneShare(samples: Float32Array, hz: number, floor = 0.02): number {
  const size = 1600;
  let best = 0;
  for (let at = 0; at + size <= samples.length; at += size / 2) {
    const window = samples.subarray(at, at + size);
    if (window.some((x) => Math.abs(x) > floor)) best = Math.max(best, toneShare(window, hz));
  }
  return best;
}
