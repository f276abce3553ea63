// Narrowband telephone audio (8 kHz) brought to 16 kHz for a recognizer whose model was trained on wideband speech
// (pocketsphinx's US-English model: filter bank to 6800 Hz). Interpolating alone leaves 4-8 kHz empty, and the model,
// which expects a fricative's energy there, heard "billing" in every word tried (docs/speech.md); half of the band's
// mirror image is kept as a stand-in for it (spectral folding, the oldest bandwidth extension), which measured
// better (docs/speech.md, "Speech recognition").

/** Taps each side of the interpolating filter (a Hann-windowed sinc). */
const HALF_TAPS = 16;
/** How much of the 0-4 kHz band's mirror image stands in for 4-8 kHz. */
const IMAGE_GAIN = 0.5;

/** The fractional-delay filter for the odd samples, computed once. */
const TAPS = Array.from({ length: 2 * HALF_TAPS }, (_, i) => {
  const t = i - HALF_TAPS + 0.5;
  return (Math.sin(Math.PI * t) / (Math.PI * t)) * (0.5 + 0.5 * Math.cos((Math.PI * t) / HALF_TAPS));
});

export function narrowToWideband(x: Float32Array): Float32Array {
  const y = new Float32Array(2 * x.length);
  for (let i = 0; i < x.length; i++) {
    let between = 0;
    for (let k = 0; k < TAPS.length; k++) {
      const j = i + k - HALF_TAPS + 1;
      if (j >= 0 && j < x.length) between += x[j]! * TAPS[k]!;
    }
    // Multiplying by (-1)^n mirrors the spectrum around 4 kHz: the image added is the narrow band turned over.
    y[2 * i] = x[i]! * (1 + IMAGE_GAIN);
    y[2 * i + 1] = between * (1 - IMAGE_GAIN);
  }
  for (let n = 0; n < y.length; n++) y[n] = Math.max(-1, Math.min(1, y[n]!));
  return y;
}
