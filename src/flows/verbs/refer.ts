import type { ReferVerb } from '../../markup/index.js';
import { followAction, type Flow, type Outcome } from '../flow.js';

const isSuccess = (status: number | null) => status !== null && status >= 200 && status < 300;

/**
 * <Refer>: asks the caller's side (a trunk, PBX or seat) to transfer itself to the target with SIP REFER. The target
 * passes the SIP target policy first. The action hears how it went (Twilio's ReferCallStatus, ReferSipResponseCode,
 * NotifySipResponseCode, snake_case); without one, a transfer done ends this call and a failed one goes on.
 */
export async function referVerb(flow: Flow, verb: ReferVerb): Promise<Outcome> {
  const { session } = flow;
  const leg = await session.answer();
  const vetted = await session.services.sip.vet(verb.target);
  // A name that gives no address here may well resolve for the far end, which does the dialling.
  if (!vetted.ok && !vetted.unresolvable) {
    session.timeline('refer-refused', { to: verb.target, reason: vetted.reason });
    return followAction(flow, 'refer action', verb.action, verb.method, {
      refer_call_status: 'failed', refer_sip_response_code: null, notify_sip_response_code: null, call_sid: session.sid,
    });
  }
  session.timeline('refer', { to: verb.target });
  const outcome = await leg.refer(verb.target);
  const transferred = isSuccess(outcome.referStatus) && isSuccess(outcome.notifyStatus);
  session.timeline('refer-result', { to: verb.target, transferred, refer_status: outcome.referStatus, notify_status: outcome.notifyStatus });
  if (verb.action) {
    return followAction(flow, 'refer action', verb.action, verb.method, {
      refer_call_status: transferred ? 'completed' : 'failed', refer_sip_response_code: outcome.referStatus,
      notify_sip_response_code: outcome.notifyStatus, call_sid: session.sid,
    });
  }
  if (!transferred || session.ended) return { kind: 'next' };
  await session.hangup('refer-completed');
  return { kind: 'end' };
}
