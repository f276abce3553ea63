import type { Conference, Participant } from './repo.js';
import type { ConferenceRepo } from './repo.js';
import type { SqlQueries } from '../store/sql.js';

export type ConferenceEvent = 'conference-start' | 'conference-end' | 'participant-join' | 'participant-leave' | 'participant-mute' | 'participant-hold';

/** Markup's short names (statusCallbackEvent="start join ...") for each event. */
const SHORT: Record<ConferenceEvent, string> = {
  'conference-start': 'start', 'conference-end': 'end', 'participant-join': 'join',
  'participant-leave': 'leave', 'participant-mute': 'mute', 'participant-hold': 'hold',
};

/** The durable callback queue (src/callbacks): enqueued in the change's transaction `tx`, so it commits with it. */
export interface CallbackQueue {
  enqueue(c: { accountId: number; stream: string; url: string; method: 'POST' | 'GET'; fields: Record<string, string> }, tx: SqlQueries): Promise<unknown>;
}

function rfc2822(ms: number): string {
  return new Date(ms).toUTCString().replace('GMT', '+0000');
}

/**
 * Queues the conference's status callback for `event`, if the conference has a callback URL subscribed to it.
 * Call inside the transaction that made the change, so the callback exists exactly when the change does.
 */
export async function queueConferenceCallback(
  repo: ConferenceRepo, queue: CallbackQueue, conf: Conference, event: ConferenceEvent, nowMs: number, p: Participant | undefined, tx: SqlQueries,
): Promise<void> {
  if (!conf.statusCallback) return;
  if (conf.statusCallbackEvents.length > 0 && !conf.statusCallbackEvents.includes(SHORT[event])) return;
  const sequence = await repo.nextSequence(conf.sid, tx);
  await queue.enqueue({
    accountId: conf.accountId, stream: conf.sid, url: conf.statusCallback, method: conf.statusCallbackMethod,
    fields: {
      AccountId: String(conf.accountId),
      ConferenceSid: conf.sid,
      FriendlyName: conf.friendlyName,
      StatusCallbackEvent: event,
      SequenceNumber: String(sequence),
      Timestamp: rfc2822(nowMs),
      ...(p ? { CallSid: p.callSid, Muted: String(p.muted), Hold: String(p.hold), Coaching: String(p.coaching), EndConferenceOnExit: String(p.endConferenceOnExit), StartConferenceOnEnter: String(p.startConferenceOnEnter), ...(p.answeredBy ? { AnsweredBy: p.answeredBy } : {}) } : {}),
      ...(event === 'conference-end' && conf.endReason ? { Reason: conf.endReason } : {}),
    },
  }, tx);
}
