import type { ConferenceTarget, DialVerb } from '../../markup/index.js';
import { checkCustomerUrl, customerUrlProblem } from '../../net/customer-url.js';
import { followAction, resolveUrl, type Flow, type Outcome } from '../flow.js';

/**
 * <Dial><Conference>: the caller is in the named conference until it leaves, is removed, or the conference ends
 * (then every leg is hung up). The Dial's action URL, if the call is still up, hears how it went.
 */
export async function dialConference(flow: Flow, verb: DialVerb, target: ConferenceTarget): Promise<Outcome> {
  const { session } = flow;
  const waitUrl = target.waitUrl === undefined ? undefined : resolveUrl(flow, target.waitUrl) ?? undefined;
  const callbackUrl = target.statusCallback === undefined ? null : resolveUrl(flow, target.statusCallback);
  let statusCallback: { url: string; method: 'GET' | 'POST'; events: string[] } | undefined;
  if (callbackUrl) {
    const check = checkCustomerUrl(callbackUrl, session.services.urls);
    // A refused callback is not worth ending the call over: the conference runs without it, visibly.
    if (check.ok) statusCallback = { url: callbackUrl, method: target.statusCallbackMethod, events: target.statusCallbackEvent };
    else session.timeline('conference-callback-refused', { url: callbackUrl, reason: customerUrlProblem('statusCallback', check) });
  }
  const outcome = await flow.services.conferences.joinByMarkup(session, {
    signal: session.document.signal,
    friendlyName: target.name, muted: target.muted, startConferenceOnEnter: target.startConferenceOnEnter,
    endConferenceOnExit: target.endConferenceOnExit, maxParticipants: target.maxParticipants, record: target.record === 'record-from-start', beep: target.beep,
    ...(waitUrl ? { waitUrl } : {}), ...(statusCallback ? { statusCallback } : {}), ...(target.coach ? { coach: target.coach } : {}),
  });
  session.timeline('dial-result', { conference_sid: outcome.conferenceSid, status: outcome.status });
  return followAction(flow, 'dial action', verb.action, verb.method, {
    dial_call_status: outcome.status === 'completed' ? 'completed' : 'failed', conference_sid: outcome.conferenceSid, call_sid: session.sid,
  });
}
