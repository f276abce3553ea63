import type { DialVerb, QueueTarget } from '../../markup/index.js';
import { followAction, resolveUrl, type Flow, type Outcome } from '../flow.js';

/**
 * <Dial><Queue>: this call takes the first caller waiting in the named queue (waiting for one up to the Dial's
 * timeout) and talks with it; its `url` document is played to that caller first. The Dial's action hears how it
 * went: completed, no-answer (nobody came), failed (no such queue); the dequeued call and its wait in line.
 */
export async function dialQueue(flow: Flow, verb: DialVerb, target: QueueTarget): Promise<Outcome> {
  const { session } = flow;
  const url = target.url === undefined ? undefined : resolveUrl(flow, target.url) ?? undefined;
  const outcome = await flow.services.acd.dequeue(session, {
    queue: target.name, timeoutMs: verb.timeout * 1000, signal: session.document.signal, ...(url ? { url } : {}),
  });
  session.timeline('dial-result', { status: outcome.status, queue_sid: outcome.queueSid, call_sid: outcome.callSid });
  return followAction(flow, 'dial action', verb.action, verb.method, {
    dial_call_status: outcome.status, dial_call_sid: outcome.callSid, queue_sid: outcome.queueSid, queue_time: outcome.waitSeconds, call_sid: session.sid,
  });
}
