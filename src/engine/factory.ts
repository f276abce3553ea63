import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { CarrierRepo } from '../store/carriers.js';
import type { RegistrationRepo } from '../store/registrations.js';
import type { EnginePort } from './port.js';
import { SandboxEngine } from './sandbox/index.js';
import { DrachtioEngine } from './drachtio/index.js';

/** SecretBox.derive's purpose for the key that signs SIP digest nonces. */
export const DIGEST_KEY_PURPOSE = 'sip digest nonces';

/**
 * The real engine reads the operator's carrier list (its inbound trust and PSTN route) and keeps SIP
 * registrations in the store. `digestKey` signs its digest nonces (derived from the master key, so every control
 * plane of a cluster accepts the others'); without it the engine makes one of its own.
 */
export function createEngine(
  config: Config, clock: Clock, logger: Logger, store: { carriers: CarrierRepo; registrations: RegistrationRepo; instanceId: string }, digestKey?: Buffer,
): EnginePort {
  if (config.engine.kind === 'sandbox') {
    logger.info('using the sandbox engine (no drachtio/FreeSWITCH configured)');
    return new SandboxEngine(clock);
  }
  const { drachtio, mediaServers, media } = config.engine;
  logger.info({ drachtio: `${drachtio.host}:${drachtio.port}`, freeswitch: mediaServers.map((m) => `${m.host}:${m.port}`) }, 'using drachtio-server + FreeSWITCH');
  return new DrachtioEngine(
    {
      drachtio, freeswitch: mediaServers, media, realm: config.sip.host, carriers: store.carriers, registrations: store.registrations, instanceId: store.instanceId,
      ...(digestKey ? { digestKey } : {}),
    },
    logger.child({ component: 'engine' }),
  );
}
