import type { Store } from '../repositories.js';
import type { FlowServices } from '../flows/services.js';

/** What createApp wires for calls, as the routes use it: the flows' services over the whole store. */
export interface PlatformServices extends FlowServices {
  store: Store;
}
