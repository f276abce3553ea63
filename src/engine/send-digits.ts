// How long sending a <Number sendDigits> string takes, the same for every engine: each key lasts as long as
// FreeSWITCH's default key (2000 samples at 8 kHz, 250 ms) with a 50 ms gap after it, `w` waits 0.5 s, `W` 1 s.

const KEY_MS = 250 + 50;
const WAIT_MS: Record<string, number> = { w: 500, W: 1000 };

export function sendDigitsMs(digits: string): number {
  return [...digits].reduce((ms, key) => ms + (WAIT_MS[key] ?? KEY_MS), 0);
}
