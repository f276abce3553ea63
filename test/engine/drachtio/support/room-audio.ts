// Who hears whom in a conference room, measured: each caller sends its own tone, and a phase listens for a while
// and reports, per listener, the share of each tone (and of the hold/announce tone) in what it heard.
import type { Test } from 'tap';
import { toneShare } from '../../../helpers/tone.js';
import type { RtpRecorder } from '../../../engine-suite/real-rtp.js';

export const TONES = { a: 500, b: 700, c: 900 } as const;
export const HOLD_HZ = 440;
export type Name = keyof typeof TONES;
export type Heard = Record<Name, Record<Name | 'hold', number>>;

/** Long enough to measure (after a settling margin), short enough to keep the files quick. */
const PHASE_MS = 1_200;
const SETTLE_SAMPLES = 8 * 300;
const HEARD = 0.1;
const SILENT = 0.02;

export async function phase(callers: Record<Name, { rtp: RtpRecorder }>): Promise<Heard> {
  const names = Object.keys(callers) as Name[];
  const marks = Object.fromEntries(names.map((n) => [n, callers[n].rtp.samples().length]));
  await new Promise((r) => setTimeout(r, PHASE_MS));
  const out = {} as Heard;
  for (const n of names) {
    const heard = callers[n].rtp.samples().subarray(marks[n]! + SETTLE_SAMPLES);
    out[n] = { a: toneShare(heard, TONES.a), b: toneShare(heard, TONES.b), c: toneShare(heard, TONES.c), hold: toneShare(heard, HOLD_HZ) };
  }
  return out;
}

/** Asserts that `listener` hears `tone` (share above 0.1) or does not (below 0.02), naming the measured share. */
export function checker(t: Test) {
  return (heard: Heard, listener: Name, tone: Name | 'hold', expected: boolean, what: string) => {
    const share = heard[listener][tone];
    t.ok(expected ? share > HEARD : share < SILENT, `${what} (${listener} hears ${tone}: share ${share.toFixed(3)})`);
  };
}
