import type { CallServices } from '../calls/services.js';
import type { AcdService } from '../acd/service.js';
import type { ConferenceService } from '../conferences/service.js';
import type { SpeechRecognition } from '../speech/service.js';

/** What markup runs with: a call's services and the feature services verbs use (<Enqueue>, <Dial><Conference>). */
export interface FlowServices extends CallServices {
  /** Queues and agents: callers wait here until an agent takes the call. */
  acd: AcdService;
  /** Conference rooms and their lifecycle. */
  conferences: ConferenceService;
  /** What callers said to a speech <Gather> (src/speech). */
  speech: SpeechRecognition;
}
