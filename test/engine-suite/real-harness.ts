// The app wired to a real DrachtioEngine instead of the sandbox, through the shared harness. The suite reaches
// `h.engine` only for test probes (activeLegs, partyCalls); those are answered by the driver's facade.
import { DrachtioEngine } from '../../src/engine/drachtio/index.js';
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
    engine: ({ config, store, logger }) => {
      const { drachtio, mediaServers, media } = config.engine;
      real = new DrachtioEngine({ drachtio, freeswitch: mediaServers, media, realm: config.sip.host, carriers: store.carriers, registrations: store.registrations }, logger);
      return { port: real, view: probe(real) as SandboxEngine };
    },
  });
  return Object.assign(h, { realEngine: real! });
}
