import type { Clock } from '../../clock.js';
import type { EngineHealth, EnginePort, TrunkCredentials } from '../port.js';

/** In-process engine for tests, local development and dashboard test calls: no SIP, simulated time. */
export class SandboxEngine implements EnginePort {
  readonly kind = 'sandbox' as const;
  readonly #provisioned = new Map<string, TrunkCredentials>();
  #running = false;

  constructor(private readonly clock: Clock) {}

  async start(): Promise<void> { this.#running = true; }
  async stop(): Promise<void> { this.#running = false; }

  health(): EngineHealth {
    return { ok: this.#running, detail: this.#running ? 'sandbox engine running' : 'sandbox engine stopped' };
  }

  /** Completes on the next clock tick, like a real SIP layer that acknowledges asynchronously. */
  provisionTrunk(trunk: TrunkCredentials): Promise<void> {
    return new Promise((resolve, reject) => {
      this.clock.setTimeout(() => {
        if (trunk.password === null) return reject(new Error(`no usable password for ${trunk.endpointName}`));
        this.#provisioned.set(trunk.endpointName, trunk);
        resolve();
      }, 0);
    });
  }

  async deprovisionTrunk(endpointName: string): Promise<void> {
    this.#provisioned.delete(endpointName);
  }

  /** Whether a login would be accepted: used by tests and, later, by the sandbox's simulated registrations. */
  acceptsLogin(endpointName: string, password: string): boolean {
    return this.#provisioned.get(endpointName)?.password === password;
  }
}
