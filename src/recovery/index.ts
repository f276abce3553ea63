import { hostname } from 'node:os';
import type { Clock } from '../clock.js';
import { pidAlive, type Liveness } from './instances.js';
import { reconcileDeadInstances, type Reconciled, type RecoveryServices } from './reconcile.js';

export { deadInstances, InstanceRepo, type Instance, type Liveness } from './instances.js';
export { RESTART_CAUSE } from './reconcile.js';

/**
 * Heartbeat period, and the silence after which a peer on another host counts as dead. A dead peer is found by the
 * first sweep after STALE_MS and its calls finished then: within STALE_MS + BEAT_MS (12 s) of its last beat, inside
 * the 15 s a cluster promises (docs/cluster.md). Five missed beats in a row: a busy node is not taken for dead.
 */
const BEAT_MS = 2_000;
const STALE_MS = 10_000;

/** How this process judges its peers now: the rule the sweep finishes dead ones by, and forwarding avoids them by. */
export function peerLiveness(self: string, clock: Clock): Liveness {
  return { self, host: hostname(), nowMs: clock.now(), staleMs: STALE_MS, pidAlive };
}

export interface RunningInstance {
  /** What the start-up pass finished (tests and the start-up log read it). */
  readonly startup: Reconciled;
  /** Stops beating and leaves the instance table: a clean shutdown leaves nothing for a successor. */
  stop(): Promise<void>;
}

/**
 * Registers this process in the shared database, finishes what dead instances left open before any call is
 * taken, then beats and sweeps every BEAT_MS so a peer that dies later is finished by whoever outlives it. A beat
 * that finds this instance asked to drain (`ringbase node drain`) calls `onDrainAsked`, once.
 */
export async function startInstance(services: RecoveryServices, onDrainAsked: () => void = () => undefined): Promise<RunningInstance> {
  const { store, clock, log } = services;
  const self = store.instanceId;
  const host = hostname();
  await store.instances.register(self, host, process.pid);
  const liveness = (): Liveness => peerLiveness(self, clock);
  const pending = new Set<Promise<void>>();
  const track = (r: Reconciled) => {
    pending.add(r.callbacks);
    void r.callbacks.finally(() => pending.delete(r.callbacks));
  };
  const startup = await reconcileDeadInstances(services, liveness());
  track(startup);
  let sweeping = false;
  let drainAsked = false;
  const timer = setInterval(() => {
    store.instances.beat(self).then(({ draining }) => {
      if (!draining || drainAsked) return;
      drainAsked = true;
      onDrainAsked();
    }, (err: unknown) => log.error({ err }, 'heartbeat failed'));
    if (sweeping) return;
    sweeping = true;
    reconcileDeadInstances(services, liveness()).then(track, (err: unknown) => log.error({ err }, 'reconciling dead instances failed'))
      .finally(() => { sweeping = false; });
  }, BEAT_MS);
  timer.unref();
  return {
    startup,
    async stop() {
      clearInterval(timer);
      await Promise.all(pending);
      await store.instances.remove(self);
    },
  };
}
