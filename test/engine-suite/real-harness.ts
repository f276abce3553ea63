// The app wired to a real DrachtioEngine instead of the sandbox, through the shared harness. The suite reaches
// `h.engine` only for test probes (activeLegs, partyCalls); those are answered by the driver's facade.
import type { DrachtioEngine } from '../../src/engine/drachtio/index.js';
import { systemClock } from '../../src/clock.js';
import { createEngine } from '../../src/engine/factory.js';
import type { SandboxEngine } from '../../src/engine/sandbox/index.js';
import { startHarness, type Harness } from '../helpers/harness.js';

export type EngineProbe = Pick<SandboxEngine, 'activeLegs' | 'partyCalls'>;

export async function startRealHarness(
  t: { teardown(fn: () => unknown): void },
  env: Record<string, string>,
  probe: (engine: DrachtioEngine) => EngineProbe,
): Promise<Harness & { realEngine: DrachtioEngine }> {
  let real: DrachtioEngine | null = null;
  const h = await startHarness(t, {
    env,
    // The engine the product builds (the factory main.ts uses), so tests run with what production passes it: the
    // store's instance id, which tags every media channel and puts a proxy in front of each media server.
    engine: ({ config, store, logger, secrets }) => {
      real = createEngine(config, systemClock(), logger, store, secrets) as DrachtioEngine;
      return { port: real, view: probe(real) as SandboxEngine };
    },
  });
  return Object.assign(h, { realEngine: real! });
}
