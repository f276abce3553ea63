import type { CallSession } from './session.js';
import { sendStatusCallback, statusFields } from './status-callback.js';

export const CALL_EVENTS = ['initiated', 'ringing', 'in-progress', 'completed'] as const;
export type CallEvent = (typeof CALL_EVENTS)[number];

export interface StatusCallbackTarget {
  url: string;
  events: ReadonlySet<string>;
  method: 'POST' | 'GET';
  /** Fields added to every callback (TrunkId, EndpointName, ...). */
  extra?: Record<string, string>;
}

/**
 * Progress callbacks for one call (API calls, trunk calls): each subscribed event once, in order, numbered.
 * `completed` carries the final status whatever it is (busy, no-answer, ...), as on Twilio.
 */
export function trackStatusCallbacks(session: CallSession, target: StatusCallbackTarget): (event: Exclude<CallEvent, 'completed'>) => void {
  let sequence = 0;
  const fire = async (event: CallEvent) => {
    if (!target.events.has(event)) return;
    const call = (await session.services.store.calls.get(session.sid))!;
    const fields = statusFields(call, session.services.clock.now(), { ...target.extra, CallbackEvent: event, SequenceNumber: String(sequence++) });
    return sendStatusCallback(session, target.url, fields, target.method);
  };
  session.onFinal(() => fire('completed'));
  return (event) => { void fire(event); };
}
