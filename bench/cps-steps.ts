// The highest sustained call rate with zero failed calls: sipp loads of `stepS` seconds at rising rates until a step
// has a failed call (bench/sip.ts, bench/cluster-calls.ts). Bounded: at most rates.length steps.
import type { LoadResult } from '../test/engine-suite/real-sipp.js';

/** Runs one step: `count` calls at `rate` per second. */
export type LoadStep = (rate: number, count: number) => Promise<LoadResult>;

export async function highestCleanRate(label: string, rates: readonly number[], stepS: number, step: LoadStep): Promise<number> {
  let best = 0;
  for (const rate of rates) {
    const count = rate * stepS;
    const r = await step(rate, count);
    const clean = r.failed === 0 && r.successful === count;
    // sipp prints its statistics when it finishes: a step stopped at its bound, or whose errors flood the kept
    // output, has none, and only overload does either.
    const outcome = Number.isNaN(r.successful) ? 'no statistics from sipp (stopped at the bound or flooded with errors): failed'
      : `${r.successful}/${count} completed, ${r.failed} failed`;
    console.log(`  ${label}: ${rate} CPS × ${stepS} s → ${outcome}`);
    if (!clean) break;
    best = rate;
    await new Promise((res) => setTimeout(res, 2_000)); // let FreeSWITCH release the step's channels
  }
  return best;
}
