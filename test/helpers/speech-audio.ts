// Test speech, made offline: espeak-ng says the text, sox brings it to 8 kHz mono, and the clip is built around it
// (silence, tones, noise from a seeded generator, gain, a G.711 µ-law round trip as a phone line would). Never
// part of the product: test audio only (the product's voice is FreeSWITCH's flite).
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { sampleToUlaw, ulawToSample } from '../../src/media/mulaw.js';

export const RATE = 8000;

/** Why speech cannot be made here, or null when espeak-ng and sox are installed. */
export function speechToolsMissing(): string | null {
  for (const tool of ['espeak-ng', 'sox']) {
    try {
      execFileSync(tool, ['--version'], { stdio: 'ignore' });
    } catch {
      return `${tool} is not installed (apt-get install espeak-ng sox): it makes the test speech`;
    }
  }
  return null;
}

export interface Voice { voice: string; wordsPerMinute: number; pitch: number }

/** `text` spoken by espeak-ng, as 8 kHz samples in [-1, 1]. */
export function speak(text: string, v: Voice = { voice: 'en-us', wordsPerMinute: 160, pitch: 50 }): Float32Array {
  const dir = mkdtempSync(path.join(tmpdir(), 'ringbase-speech-'));
  try {
    const wav = path.join(dir, 'said.wav');
    const raw = path.join(dir, 'said.raw');
    execFileSync('espeak-ng', ['-v', v.voice, '-s', String(v.wordsPerMinute), '-p', String(v.pitch), '-w', wav, text]);
    execFileSync('sox', [wav, '-r', String(RATE), '-c', '1', '-b', '16', '-e', 'signed-integer', '-t', 'raw', raw]);
    const bytes = readFileSync(raw);
    const out = new Float32Array(bytes.length / 2);
    for (let i = 0; i < out.length; i++) out[i] = bytes.readInt16LE(i * 2) / 32768;
    return out;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

export const silence = (ms: number) => new Float32Array(Math.round((RATE * ms) / 1000));

export { tone } from '../../src/media/tones.js';

export function concat(...parts: Float32Array[]): Float32Array {
  const out = new Float32Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}

/** A deterministic generator (mulberry32), so a clip's noise is the same on every run. */
export function seeded(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The clip as a phone line gives it: `gainDb` applied, white noise at `noiseDb` dBFS added, through G.711 µ-law. */
export function overLine(clip: Float32Array, opts: { gainDb?: number; noiseDb?: number | null; seed?: number } = {}): Float32Array {
  const gain = 10 ** ((opts.gainDb ?? 0) / 20);
  const random = seeded(opts.seed ?? 1);
  // Uniform noise of amplitude a has RMS a/sqrt(3).
  const noise = opts.noiseDb == null ? 0 : 10 ** (opts.noiseDb / 20) * Math.sqrt(3);
  return clip.map((x) => ulawToSample(sampleToUlaw(x * gain + (noise ? (random() * 2 - 1) * noise : 0))));
}

export const msOf = (samples: Float32Array) => (samples.length / RATE) * 1000;
