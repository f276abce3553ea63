import type { Logger } from 'pino';
import type { Clock } from '../clock.js';
import type { EnginePort } from '../engine/port.js';
import type { SqlDb } from '../store/sql.js';
import type { CallRepo } from '../store/calls.js';
import type { RecordingRepo } from '../store/recordings.js';
import type { TrunkRepo } from '../store/trunks.js';
import type { NumberRepo } from '../numbers/repo.js';
import type { CustomerHttp } from './customer-http.js';
import type { LifecycleEvents } from '../events/lifecycle.js';
import type { CallWatch } from './watch.js';
import type { MediaCache } from '../media/media-cache.js';
import type { PromptCache } from '../media/prompt-cache.js';
import type { CustomerUrlRule, SipTargetPolicy } from '../net/index.js';
import type { HoldAudio } from './hold-audio.js';
import type { AccountVoices } from './voices.js';

/** The repositories a call uses; the composition root's Store (src/repositories.ts) has these and the rest. */
export interface CallStore {
  /** The database as converted repositories use it (promises; SQLite or PostgreSQL). */
  sql: SqlDb;
  /** This process's identity in the shared database: it owns the calls and recordings it creates. */
  instanceId: string;
  calls: CallRepo;
  recordings: RecordingRepo;
  trunks: TrunkRepo;
  numbers: NumberRepo;
}

/**
 * What a call needs from the rest of the platform, wired once by createApp: the calls kernel's own, no feature
 * services (src/flows adds the ACD and conferences for the verbs that use them).
 */
export interface CallServices {
  store: CallStore;
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
  /** The built-in voices and the account's vendor voices <Say> may use (src/calls/voices.ts). */
  voices: AccountVoices;
  /** SIP destinations (API `to`, <Dial><Sip>, conference participants) are vetted and pinned here. */
  sip: SipTargetPolicy;
  /** The https rule for customer callback URLs given at the API (src/net/customer-url.ts). */
  urls: CustomerUrlRule;
  /** What held and waiting members hear from a wait or hold URL: audio, or a hold document (src/flows/hold-documents.ts). */
  holdAudio: HoldAudio;
}
