import { startHarness } from '../helpers/harness.js';
import { scaledClock } from '../helpers/scaled-clock.js';
import type { CallerPlan, EngineDriver, PlacedCall } from './driver.js';
import type { SimulatedCall } from '../../src/engine/sandbox/index.js';

const heardSay = (call: SimulatedCall) => call.transcript.some((e) => e.type === 'heard-say');

const placed = (call: SimulatedCall): PlacedCall => ({
  ended: call.ended,
  heard: () => call.transcript.flatMap((e) => (e.type === 'heard-say' ? [e.text] : [])),
  hears: heardSay(call) ? Promise.resolve(true) : new Promise<boolean>((resolve) => {
    const off = call.onEvent(() => { if (heardSay(call)) { off(); resolve(true); } });
    void call.ended.then(() => { off(); resolve(false); });
  }),
  hangup: () => call.hangup(),
  endedAt: () => call.ended.then(() => Date.now()),
});

const SPEED = 50;

/**
 * A plan's hangupAfterMs counts from the answer (CallerPlan), as sipp's does on the real engines: the simulated
 * caller does not also give up before it. Left to the sandbox's default it did, after the same time, and on a loaded
 * machine a webhook answered over real HTTP later than 5000 simulated ms (100 real ms) found the caller gone.
 */
const asCaller = (plan: CallerPlan) => ({ ...plan, hangupBeforeAnswerAfterMs: null });

export async function sandboxDriver(t: { teardown(fn: () => unknown): void }, env: Record<string, string> = {}): Promise<EngineDriver> {
  const h = await startHarness(t, { clock: scaledClock(SPEED), env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_TRUSTED_PROXIES: '127.0.0.1', ...env } });
  return {
    name: 'sandbox', h, speed: SPEED,
    async inbound(from, to, plan = {}) {
      return placed(h.engine.simulateInbound({ from, to, caller: asCaller(plan) }));
    },
    async fromTrunk(trunk, from, to, plan = {}) {
      if (!h.engine.acceptsLogin(trunk.endpointName, trunk.password)) throw new Error(`sandbox: ${trunk.endpointName} would be refused`);
      return placed(h.engine.simulateInbound({ from, to, source: { kind: 'trunk', endpointName: trunk.endpointName }, caller: asCaller(plan) }));
    },
    async party(address, plan) { h.engine.setParty(address, plan); },
    // Seats count as registered in the sandbox; the party at the trunk's address answers as planned.
    async agentSeat(trunk, plan) { h.engine.setParty(`client:${trunk.endpointName}`, plan); },
  };
}
