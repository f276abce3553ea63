import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { EnginePort } from './port.js';
import { SandboxEngine } from './sandbox/index.js';
import { ConfigError } from '../config.js';

export function createEngine(config: Config, clock: Clock, logger: Logger): EnginePort {
  if (config.engine.kind === 'sandbox') {
    logger.info('using the sandbox engine (no drachtio/FreeSWITCH configured)');
    return new SandboxEngine(clock);
  }
  throw new ConfigError('RINGBASE_ENGINE=drachtio: the drachtio/FreeSWITCH adapter is not part of this build yet');
}
