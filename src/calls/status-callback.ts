import type { CallRecord } from '../store/calls.js';
import type { CallSession } from './session.js';

/** What sending a callback needs of a call: a live session, or a call finished by crash reconciliation. */
export type CallbackSink = Pick<CallSession, 'services' | 'accountId' | 'timeline'>;

function rfc2822(iso: string | null, fallbackMs: number): string {
  return new Date(iso ?? fallbackMs).toUTCString().replace('GMT', '+0000');
}

/** Twilio-style call status fields, flat, as sent to Hangup URLs and trunk status callbacks. */
export function statusFields(call: CallRecord, nowMs: number, extra: Record<string, string> = {}): Record<string, string> {
  return {
    CallSid: call.sid,
    AccountId: String(call.accountId),
    From: call.from,
    To: call.to,
    Direction: call.direction,
    CallStatus: call.status,
    Duration: String(call.duration ?? 0),
    ...(call.hangupCause ? { HangupCause: call.hangupCause } : {}),
    ...(call.parentSid ? { ParentCallSid: call.parentSid } : {}),
    ...(call.answeredBy ? { AnsweredBy: call.answeredBy } : {}),
    Timestamp: rfc2822(call.endedAt, nowMs),
    ...extra,
  };
}

/** Sends one status callback (signed, form-encoded, 5 s) and notes the outcome on the call's timeline. */
export async function sendStatusCallback(session: CallbackSink, url: string, fields: Record<string, string>, method: 'POST' | 'GET' = 'POST'): Promise<void> {
  let outcome: Record<string, unknown>;
  try {
    const res = await session.services.http.send({ accountId: session.accountId, url, method, payload: { kind: 'form', body: fields }, timeoutMs: 5_000 });
    outcome = { status: res.status, latency_ms: Math.round(res.latencyMs) };
  } catch (err) {
    outcome = { error: (err as Error).message };
  }
  await session.timeline('status-callback', { url, event: fields.CallStatus, ...outcome });
}
