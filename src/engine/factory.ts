import type { Logger } from 'pino';
import type { Config } from '../config.js';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { CarrierRepo } from '../store/carriers.js';
import type { RegistrationRepo } from '../store/registrations.js';
import type { EnginePort } from './port.js';
import { SandboxEngine } from './sandbox/index.js';
import { DrachtioEngine, type CarrierDirectory } from './drachtio/index.js';

/** SecretBox.derive's purpose for the key that signs SIP digest nonces. */
export const DIGEST_KEY_PURPOSE = 'sip digest nonces';

/** The operator's carriers as the engine uses them: with their passwords opened, read on every call. */
function carrierDirectory(repo: CarrierRepo, secrets: SecretBox): CarrierDirectory {
  return {
    list: async () => (await repo.list()).map(({ auth, ...carrier }) => ({
      ...carrier, auth: auth && { username: auth.username, password: secrets.open(auth.passwordSealed) ?? '', realm: auth.realm },
    })),
  };
}

/**
 * The real engine reads the operator's carrier list (its inbound trust and PSTN routes) and keeps SIP registrations
 * in the store. Its digest nonces are signed with a key derived from the master key, so every control plane of a
 * cluster accepts the others'.
 */
export function createEngine(
  config: Config, clock: Clock, logger: Logger, store: { carriers: CarrierRepo; registrations: RegistrationRepo; instanceId: string }, secrets: SecretBox,
): EnginePort {
  if (config.engine.kind === 'sandbox') {
    logger.info('using the sandbox engine (no drachtio/FreeSWITCH configured)');
    return new SandboxEngine(clock);
  }
  const { drachtio, mediaServers, media } = config.engine;
  logger.info({ drachtio: `${drachtio.host}:${drachtio.port}`, freeswitch: mediaServers.map((m) => `${m.host}:${m.port}`) }, 'using drachtio-server + FreeSWITCH');
  return new DrachtioEngine(
    {
      drachtio, freeswitch: mediaServers, media, realm: config.sip.host, carriers: carrierDirectory(store.carriers, secrets),
      registrations: store.registrations, instanceId: store.instanceId, digestKey: secrets.derive(DIGEST_KEY_PURPOSE),
    },
    logger.child({ component: 'engine' }),
  );
}
