import type { IncomingCall } from '../engine/port.js';
import type { FlowServices } from './services.js';
import { handleNumberCall } from './inbound.js';
import type { CallSession } from '../calls/session.js';

export type TrunkCallHandler = (services: FlowServices, incoming: IncomingCall) => Promise<CallSession | undefined>;

/**
 * Routes every incoming call by where it came from. Carrier calls reach numbers; trunk and WSS-client calls
 * have their own handlers, registered by the modules that implement them.
 */
export class CallDispatcher {
  readonly #active = new Set<Promise<unknown>>();
  #trunkHandler: TrunkCallHandler | undefined;

  constructor(private readonly services: FlowServices) {}

  setTrunkHandler(handler: TrunkCallHandler): void { this.#trunkHandler = handler; }

  /** The handler given to the engine; returns the session for tests and the simulator. */
  handle = (incoming: IncomingCall): Promise<CallSession | undefined> => this.track(this.#route(incoming).catch((err: unknown) => {
    this.services.log.error({ err, from: incoming.from, to: incoming.to }, 'incoming call could not be handled');
    return undefined;
  }));

  /** Counts a call flow started elsewhere (API-placed calls) so settled() and shutdown wait for it too. */
  track<T>(job: Promise<T>): Promise<T> {
    this.#active.add(job);
    void job.finally(() => this.#active.delete(job));
    return job;
  }

  /**
   * Waits for every call flow in progress and every call end being stored (graceful shutdown, tests): a leg's end
   * stores the call's final state, hangup event and last timeline entries after its flow may have returned, and on
   * PostgreSQL those writes take round trips the store must not be closed under. A flow's last timeline entries
   * (a verb's result noted as it returns) are written with their turn's batch, after the flow.
   */
  async settled(): Promise<void> {
    do {
      while (this.#active.size > 0) await Promise.allSettled([...this.#active]);
      await this.services.watch.finished();
      await this.services.store.calls.timelineFlushed();
    } while (this.#active.size > 0);
  }

  async #route(incoming: IncomingCall): Promise<CallSession | undefined> {
    switch (incoming.source.kind) {
      case 'carrier': return handleNumberCall(this.services, incoming);
      case 'trunk':
      case 'client':
        if (this.#trunkHandler) return this.#trunkHandler(this.services, incoming);
        this.services.log.warn({ source: incoming.source }, 'no handler for trunk calls; refused');
        await incoming.reject('unavailable');
        return undefined;
    }
  }
}
