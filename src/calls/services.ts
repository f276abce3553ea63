import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { EnginePort } from '../engine/port.js';
import type { Store } from '../store/index.js';
import type { CustomerHttp } from './customer-http.js';
import type { LifecycleEvents } from '../events/lifecycle.js';
import type { CallWatch } from './watch.js';
import type { MediaCache } from '../media/media-cache.js';
import type { PromptCache } from '../media/prompt-cache.js';
import type { CustomerUrlRule, SipTargetPolicy } from '../net/index.js';
import type { ConferenceService } from '../conferences/service.js';
import type { CallbackOutbox } from '../callbacks/worker.js';
import type { AcdService } from '../acd/service.js';

/** What a call needs from the rest of the platform, wired once by createApp. */
export interface CallServices {
  store: Store;
  engine: EnginePort;
  clock: Clock;
  log: Logger;
  http: CustomerHttp;
  events: LifecycleEvents;
  /** Where recordings are written (under the data dir). */
  recordingsDir: string;
  /** Base for URLs handed to customers (recording media links). */
  publicBaseUrl: string;
  watch: CallWatch;
  /** Customer media (<Play> URLs) fetched under the target policy into local files the engine plays. */
  media: MediaCache;
  /** Speech rendered once and played as a file (src/media/prompt-cache.ts), when the engine synthesizes any. */
  prompts?: PromptCache | null;
  /** SIP destinations (API `to`, <Dial><Sip>, conference participants) are vetted and pinned here. */
  sip: SipTargetPolicy;
  /** The https rule for customer callback URLs given at the API (src/net/customer-url.ts). */
  urls: CustomerUrlRule;
  /** Conference rooms and their lifecycle (set by createApp once the other services exist: it uses them). */
  conferences: ConferenceService;
  /** Queues and agents: callers wait here until an agent takes the call (set by createApp like conferences). */
  acd: AcdService;
  /** Durable per-resource callbacks (src/callbacks): enqueue inside the transaction of the change that owes them. */
  callbacks?: CallbackOutbox;
}
