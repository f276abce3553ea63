// A caller waiting in a queue, as the ACD holds it from <Enqueue> to the end of its wait: what AcdService, its
// offers and a dequeuing call share.
import type { Clock, TimerHandle } from '../clock.js';
import type { CallLeg, ConferenceMember } from '../engine/port.js';
import type { HoldPlayback } from '../calls/hold-audio.js';
import type { CallSession } from '../calls/session.js';
import type { Queue } from './queues.js';

/**
 * Twilio's QueueResult values that apply here (plus `timeout`: the wait reached maxWait / max_wait_seconds).
 * `redirected`: a REST client's redirect took the caller out of the line; `redirected-from-bridged`: out of the
 * talk with an agent (whose call is hung up); `leave`: a <Leave> in the wait document took it out of the line.
 */
export type QueueResult = 'bridged' | 'hangup' | 'timeout' | 'error' | 'redirected' | 'redirected-from-bridged' | 'leave';

/** The caller and the agent talk in this room; a supervisor joins it to listen, whisper or barge. */
export const acdRoom = (callSid: string) => `acd-${callSid}`;

export interface Waiter {
  session: CallSession;
  queue: Queue;
  enteredAt: number;
  member: ConferenceMember;
  /** What the caller hears while waiting (the queue's wait audio or document); null once an agent took it. */
  holding: HoldPlayback | null;
  /** Set when the wait is over; later events (a late answer, a second hang-up) find it settled. */
  settled: boolean;
  finish: (result: QueueResult) => void;
  ringing: AbortController | null;
  /** Who talks with the caller: an agent whose seat rang, or a call that dequeued it (<Dial><Queue>, sid null). */
  agent: { sid: string | null; leg: CallLeg; member: ConferenceMember | null; end: () => Promise<void> } | null;
  maxWait: TimerHandle | null;
  /** A redirect took the caller away (see WaitRequest.signal). */
  redirected: boolean;
}

/** Whole seconds since a caller entered the queue. */
export const waitedSeconds = (clock: Clock, enteredAt: number): number => Math.floor((clock.now() - enteredAt) / 1000);
