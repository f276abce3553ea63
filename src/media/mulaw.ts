// G.711 µ-law (PCMU), the one codec media streams speak (Twilio's `audio/x-mulaw`, 8 kHz mono).
const BIAS = 0x84;
const CLIP = 32635;

/** One µ-law byte as a sample in [-1, 1]. */
export function ulawToSample(byte: number): number {
  const u = ~byte & 0xff;
  let t = ((u & 0x0f) << 3) + BIAS;
  t <<= (u & 0x70) >> 4;
  return ((u & 0x80) ? BIAS - t : t - BIAS) / 32768;
}

const DECODE = Float32Array.from({ length: 256 }, (_, b) => ulawToSample(b));

/** A sample in [-1, 1] as one µ-law byte (ITU-T G.711 segment search). */
export function sampleToUlaw(sample: number): number {
  let pcm = Math.round(Math.max(-1, Math.min(1, sample)) * 32767);
  const sign = pcm < 0 ? 0x80 : 0;
  if (sign) pcm = -pcm;
  pcm = Math.min(pcm, CLIP) + BIAS;
  let exponent = 7;
  for (let mask = 0x4000; (pcm & mask) === 0 && exponent > 0; mask >>= 1) exponent--;
  const mantissa = (pcm >> (exponent + 3)) & 0x0f;
  return ~(sign | (exponent << 4) | mantissa) & 0xff;
}

export function decodeUlaw(bytes: Uint8Array): Float32Array {
  const out = new Float32Array(bytes.length);
  for (let i = 0; i < bytes.length; i++) out[i] = DECODE[bytes[i]!]!;
  return out;
}

export function encodeUlaw(samples: Float32Array): Buffer {
  const out = Buffer.alloc(samples.length);
  for (let i = 0; i < samples.length; i++) out[i] = sampleToUlaw(samples[i]!);
  return out;
}

/** µ-law silence (the code for zero). */
export const ULAW_SILENCE = 0xff;
