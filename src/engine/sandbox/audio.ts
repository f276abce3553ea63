// Synthetic audio for sandbox recordings: no real media flows, so each recorded track gets a distinct tone
// that tests can tell from silence (and, per channel, from each other).
import type { RecordingTracks } from '../port.js';
import type { WavAudio } from '../../media/wav.js';

export const SAMPLE_RATE = 8000;
const AMPLITUDE = 0.3;
const CALLER_HZ = 440; // the inbound track: what the remote party says
const PLATFORM_HZ = 660; // the outbound track: what the platform plays to them

function frames(ms: number): number { return Math.max(0, Math.round((ms * SAMPLE_RATE) / 1000)); }

function tone(hz: number, count: number, activeFrames = count): Float32Array {
  const out = new Float32Array(count);
  for (let i = 0; i < Math.min(count, activeFrames); i++) out[i] = AMPLITUDE * Math.sin((2 * Math.PI * hz * i) / SAMPLE_RATE);
  return out;
}

/** A voicemail-style recording: the caller talks for `speakingMs`, then silence until the recording ends. */
export function speechThenSilence(totalMs: number, speakingMs: number): WavAudio {
  return { sampleRate: SAMPLE_RATE, channels: [tone(CALLER_HZ, frames(totalMs), frames(speakingMs))] };
}

/** A whole-call recording: one channel per side when split, otherwise the recorded tracks mixed down. */
export function callAudio(durationMs: number, tracks: RecordingTracks, dualChannel: boolean): WavAudio {
  const count = frames(durationMs);
  if (tracks !== 'both') return { sampleRate: SAMPLE_RATE, channels: [tone(tracks === 'inbound' ? CALLER_HZ : PLATFORM_HZ, count)] };
  const caller = tone(CALLER_HZ, count);
  const platform = tone(PLATFORM_HZ, count);
  if (dualChannel) return { sampleRate: SAMPLE_RATE, channels: [caller, platform] };
  return { sampleRate: SAMPLE_RATE, channels: [caller.map((s, i) => (s + (platform[i] ?? 0)) / 2)] };
}
