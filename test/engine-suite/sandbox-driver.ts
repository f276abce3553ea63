import { startHarness } from '../helpers/harness.js';
import { scaledClock } from '../helpers/scaled-clock.js';
import type { EngineDriver } from './driver.js';

const SPEED = 50;

export async function sandboxDriver(t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}): Promise<EngineDriver> {
  const h = await startHarness(t, { clock: scaledClock(SPEED), env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', ...env } });
  return {
    name: 'sandbox', h, speed: SPEED,
    async inbound(from, to, plan = {}) {
      const call = h.engine.simulateInbound({ from, to, caller: plan });
      return {
        ended: call.ended,
        heard: () => call.transcript.flatMap((e) => (e.type === 'heard-say' ? [e.text] : [])),
      };
    },
    party(address, plan) { h.engine.setParty(address, plan); },
  };
}
