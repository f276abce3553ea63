// Tones the platform plays itself (the conference beep): generated once into the data dir as WAV files, so
// the engine plays them like any other local media.
import { existsSync } from 'node:fs';
import path from 'node:path';
import type { LocalMedia } from './local-media.js';
import { ensurePrivateDir } from '../private-files.js';
import { writeWav } from './wav.js';

const SAMPLE_RATE = 8000;

/** `ms` of a sine at `hz`, 8 kHz samples in [-1, 1]. */
export function tone(hz: number, ms: number, level = 0.3): Float32Array {
  const samples = new Float32Array(Math.round((SAMPLE_RATE * ms) / 1000));
  for (let i = 0; i < samples.length; i++) samples[i] = level * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE);
  return samples;
}

/** The conference enter/exit beep: 880 Hz for 250 ms. */
export function conferenceBeep(dir: string): LocalMedia {
  const file = path.join(dir, 'beep-880hz-250ms.wav');
  if (!existsSync(file)) {
    ensurePrivateDir(dir);
    writeWav(file, { sampleRate: SAMPLE_RATE, channels: [tone(880, 250)] });
  }
  return { file, source: 'beep' };
}
