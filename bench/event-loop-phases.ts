// Event-loop delay of this process over a bench step and over each of its phases (issue 29: where in a burst the
// loop stalls). monitorEventLoopDelay's histograms cannot be reset to a point in time, so each phase has its own.
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';

const RESOLUTION_MS = 10;

export interface StepDelays {
  /** p99 over the whole step, ms. */
  step: number;
  /** p99 per phase, ms, in the order the phases began. */
  phases: Record<string, number>;
}

export class PhaseDelays {
  private readonly whole = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
  private readonly done: Array<[string, IntervalHistogram]> = [];
  private current: [string, IntervalHistogram] | null = null;

  constructor() { this.whole.enable(); }

  /** Ends the phase under way, if any, and begins `phase`. */
  begin(phase: string): void {
    this.current?.[1].disable();
    const h = monitorEventLoopDelay({ resolution: RESOLUTION_MS });
    h.enable();
    this.current = [phase, h];
    this.done.push(this.current);
  }

  /** Stops measuring; the step's p99 and each phase's. */
  end(): StepDelays {
    this.current?.[1].disable();
    this.whole.disable();
    const p99 = (h: IntervalHistogram) => (h.count ? h.percentile(99) / 1e6 : 0);
    return { step: p99(this.whole), phases: Object.fromEntries(this.done.map(([phase, h]) => [phase, p99(h)])) };
  }
}
