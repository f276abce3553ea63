import type { CallRecord } from '../store/calls.js';
import type { CallStore } from '../calls/services.js';
import { statusFields } from '../calls/status-callback.js';

export interface FinalCallback { url: string; method: 'POST' | 'GET'; fields: Record<string, string> }

/**
 * The status callbacks a call's ending owes, as the live flows send them: the API request's status_callback
 * and the trunk's (when subscribed to `completed`), the number's Hangup URL. Sequence numbers continue from
 * the callbacks the call's timeline shows were already sent.
 */
export async function finalCallbacks(store: CallStore, call: CallRecord, nowMs: number): Promise<FinalCallback[]> {
  const timeline = await store.calls.timeline(call.sid);
  const sent = (url: string) => timeline.filter((e) => e.kind === 'status-callback' && e.detail.url === url).length;
  const progress = (url: string, extra: Record<string, string>) =>
    statusFields(call, nowMs, { ...extra, CallbackEvent: 'completed', SequenceNumber: String(sent(url)) });
  const out: FinalCallback[] = [];
  if (call.callbackUrl && call.callbackEvents.includes('completed')) {
    out.push({ url: call.callbackUrl, method: call.callbackMethod, fields: progress(call.callbackUrl, {}) });
  }
  const trunk = call.direction === 'trunk' && call.trunkId !== null ? await store.trunks.getById(call.trunkId) : undefined;
  if (trunk?.status_callback_url && trunk.status_callback_events.split(/\s+/).includes('completed')) {
    out.push({ url: trunk.status_callback_url, method: 'POST', fields: progress(trunk.status_callback_url, { TrunkId: String(trunk.id), EndpointName: trunk.endpoint_name }) });
  }
  const number = call.direction === 'inbound' && call.numberId !== null ? await store.numbers.getById(call.numberId) : undefined;
  if (number?.settings.hangup_url) {
    out.push({ url: number.settings.hangup_url, method: 'POST', fields: statusFields(call, nowMs, { ClientRef: number.settings.client_ref ?? '' }) });
  }
  return out;
}
