import type { CallServices, CallStore } from '../calls/services.js';
import type { QueueRepo } from './queues.js';
import type { AgentRepo } from './agents.js';
import type { DispositionRepo } from './dispositions.js';
import type { CallbackRepo } from './callbacks.js';

/** The repositories the ACD uses besides a call's own. */
export interface AcdStore extends CallStore {
  queues: QueueRepo;
  agents: AgentRepo;
  dispositions: DispositionRepo;
  scheduledCallbacks: CallbackRepo;
}

/** What the ACD carries calls with: a call's services, with the ACD's repositories in the store. */
export type AcdServices = CallServices & { store: AcdStore };
