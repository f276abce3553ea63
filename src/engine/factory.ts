import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { EnginePort } from './port.js';
import { SandboxEngine } from './sandbox/index.js';
import { DrachtioEngine, type CarrierDirectory } from './drachtio/index.js';

/** `carriers` is the operator's carrier list (the store's repo): the real engine's inbound trust and PSTN route. */
export function createEngine(config: Config, clock: Clock, logger: Logger, carriers?: CarrierDirectory): EnginePort {
  if (config.engine.kind === 'sandbox') {
    logger.info('using the sandbox engine (no drachtio/FreeSWITCH configured)');
    return new SandboxEngine(clock);
  }
  const { drachtio, freeswitch, media } = config.engine;
  logger.info({ drachtio: `${drachtio.host}:${drachtio.port}`, freeswitch: `${freeswitch.host}:${freeswitch.port}` }, 'using drachtio-server + FreeSWITCH');
  return new DrachtioEngine({ drachtio, freeswitch, media, realm: config.sip.host, ...(carriers ? { carriers } : {}) }, logger.child({ component: 'engine' }));
}
