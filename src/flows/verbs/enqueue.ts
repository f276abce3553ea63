import type { EnqueueVerb } from '../../markup/index.js';
import { followAction, resolveUrl, type Flow, type Outcome } from '../flow.js';

/**
 * <Enqueue>: the caller waits in the named queue until an agent takes the call (then talks until either hangs up),
 * hangs up, or the wait runs out. The action URL, if the call is still up, hears how it went (Twilio's QueueResult,
 * QueueSid, QueueTime; snake_case like every field this platform posts); without one the document goes on.
 */
export async function enqueueVerb(flow: Flow, verb: EnqueueVerb): Promise<Outcome> {
  const { session } = flow;
  const waitUrl = verb.waitUrl === undefined ? undefined : resolveUrl(flow, verb.waitUrl) ?? undefined;
  const outcome = await flow.services.acd.wait(session, {
    signal: session.document.signal, queue: verb.queue, ...(waitUrl ? { waitUrl } : {}), ...(verb.maxWait === undefined ? {} : { maxWaitSeconds: verb.maxWait }),
  });
  session.timeline('queue-result', { result: outcome.result, queue_sid: outcome.queueSid, wait_seconds: outcome.waitSeconds });
  return followAction(flow, 'enqueue action', verb.action, verb.method, {
    queue_result: outcome.result, queue_sid: outcome.queueSid, queue_time: outcome.waitSeconds, agent_sid: outcome.agentSid, call_sid: session.sid,
  });
}
