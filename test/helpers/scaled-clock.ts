import type { Clock, TimerHandle } from '../../src/clock.js';

/**
 * Simulated time running `factor` times faster than real time. Call-flow tests use it so a 5-second Gather
 * timeout takes 100 ms, while the webhook servers they talk to stay real.
 */
export function scaledClock(factor: number): Clock & { realMs(simMs: number): number } {
  const realStart = Date.now();
  const simStart = Date.now();
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => simStart + (Date.now() - realStart) * factor,
    setTimeout(fn, ms): TimerHandle {
      const id = next++;
      timers.set(id, setTimeout(() => { timers.delete(id); fn(); }, Math.max(0, ms / factor)));
      return { id };
    },
    clearTimeout(handle) {
      const t = timers.get(handle.id);
      if (t) { clearTimeout(t); timers.delete(handle.id); }
    },
    realMs: (simMs) => simMs / factor,
  };
}
