// Frequency checks on what a caller heard: proves a particular prompt (a pure tone) played, not just "some audio".
import { toneShare } from '../../src/media/tone-detector.js';

export { toneShare };

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
