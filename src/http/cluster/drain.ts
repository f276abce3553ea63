// A node's drain (SIGTERM, or `ringbase node drain` asked through the database): it takes no new calls, new SIP
// calls and registrations go to the other nodes (drachtio-server leaves it out), `POST /api/calls` is forwarded to
// a live node that is not draining, and /healthz says `draining` so load balancers stop sending it work. Its calls
// in progress go on; the process (src/main.ts) waits for them up to the grace period, then stops.
import type { Logger } from 'pino';
import type { EnginePort } from '../../engine/port.js';
import type { InstanceRepo } from '../../recovery/index.js';

export class NodeDrain {
  #active = false;

  constructor(private readonly d: { instances: Pick<InstanceRepo, 'drain'>; self: string; engine: Pick<EnginePort, 'stopIntake'>; log: Logger }) {}

  get active(): boolean { return this.#active; }

  /** Begins the drain (idempotent): the cluster sees it in the instance table first, then the SIP intake stops. */
  async begin(): Promise<void> {
    if (this.#active) return;
    this.#active = true;
    await this.d.instances.drain(this.d.self).catch((err: unknown) => this.d.log.warn({ err }, 'could not mark this node draining in the database'));
    await this.d.engine.stopIntake();
    this.d.log.info('draining: no new calls; the calls in progress go on');
  }
}
