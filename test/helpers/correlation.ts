// Proves received audio is the audio sent (not merely "audio at the right frequency"): normalized cross-correlation
// of a known signal against a recording, at the best lag.

/** A deterministic wideband test signal (seeded noise, low-passed a little so G.711 keeps most of it). */
export function knownNoise(samples: number, level = 0.25, seed = 0x5eed): Float32Array {
  let state = seed >>> 0;
  const out = new Float32Array(samples);
  let previous = 0;
  for (let i = 0; i < samples; i++) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const white = state / 0xffffffff - 0.5;
    previous = 0.5 * previous + white;
    out[i] = Math.max(-1, Math.min(1, level * 2 * previous));
  }
  return out;
}

/**
 * The highest normalized cross-correlation (-1..1) of `reference` with any same-length window of `recording`,
 * and the lag (in samples) where it occurs. 1 means the recording holds the reference unchanged but for gain.
 */
export function bestCorrelation(reference: Float32Array, recording: Float32Array): { r: number; lag: number } {
  const n = reference.length;
  let refEnergy = 0;
  for (const x of reference) refEnergy += x * x;
  let best = { r: 0, lag: -1 };
  if (recording.length < n || refEnergy === 0) return best;
  let windowEnergy = 0;
  for (let i = 0; i < n; i++) windowEnergy += recording[i]! * recording[i]!;
  for (let lag = 0; lag + n <= recording.length; lag++) {
    if (lag > 0) {
      const gone = recording[lag - 1]!;
      const added = recording[lag + n - 1]!;
      windowEnergy += added * added - gone * gone;
    }
    if (windowEnergy <= 1e-9) continue;
    let dot = 0;
    for (let i = 0; i < n; i++) dot += reference[i]! * recording[lag + i]!;
    const r = dot / Math.sqrt(refEnergy * windowEnergy);
    if (r > best.r) best = { r, lag };
  }
  return best;
}

/**
 * `reference` cut into `pieces` equal parts, each found on its own in `recording`: its best correlation and lag.
 * Where one whole-signal correlation only says "something differs", this says which part differs, or that every
 * part arrived intact but later than the one before it (a gap inserted) or earlier (audio dropped).
 */
export function piecewiseCorrelation(reference: Float32Array, recording: Float32Array, pieces: number): Array<{ r: number; lag: number }> {
  const size = Math.floor(reference.length / pieces);
  return Array.from({ length: pieces }, (_, k) => bestCorrelation(reference.subarray(k * size, (k + 1) * size), recording));
}
