import type { IncomingCall } from '../engine/port.js';
import type { PhoneNumber } from '../numbers/repo.js';
import { newSid } from '../crypto/tokens.js';
import { isOpen } from '../numbers/schedule.js';
import type { FlowServices } from './services.js';
import { CallSession } from '../calls/session.js';
import { fetchAndRun } from './interpreter.js';
import { failCall, type Flow } from './flow.js';
import { statusFields, sendStatusCallback } from '../calls/status-callback.js';
import { voicemail } from './features/voicemail.js';
import { forward } from './features/forward.js';
import { runIvr } from './features/ivr.js';

/**
 * A call from a carrier to one of our numbers. The order is the spec's: inactive → hang up without the
 * webhook; outside the schedule → the after-hours action; IVR menu on → the menu; otherwise the webhook.
 */
export async function handleNumberCall(services: FlowServices, incoming: IncomingCall): Promise<CallSession | undefined> {
  const number = await services.store.numbers.getByE164(incoming.to);
  if (!number || number.accountId === null) {
    services.log.info({ to: incoming.to }, 'incoming call to a number nobody holds; refused');
    await incoming.reject('unavailable');
    return undefined;
  }
  const session = new CallSession(services, await services.store.calls.create({
    sid: newSid('CA'), accountId: number.accountId, direction: 'inbound', from: incoming.from, to: incoming.to, status: 'ringing', numberId: number.id,
  }), incoming);
  const { settings } = number;
  if (settings.hangup_url) {
    const url = settings.hangup_url;
    session.onFinal((call) => sendStatusCallback(session, url, statusFields(call, services.clock.now(), { ClientRef: settings.client_ref ?? '' })));
  }
  await route(services, session, incoming, number).catch(async (err: unknown) => {
    session.log.error({ err }, 'call flow failed');
    await session.hangup('internal-error').catch(() => undefined);
  });
  return session;
}

async function route(services: FlowServices, session: CallSession, incoming: IncomingCall, number: PhoneNumber): Promise<void> {
  const { settings } = number;
  if (!settings.active) {
    session.timeline('routing', { decision: 'inactive' });
    return session.reject('unavailable', 'failed', 'number-inactive');
  }
  await incoming.ring();
  await applyRecordingPolicy(session, number);
  const fallback = settings.fallback_url ? { url: settings.fallback_url, method: 'POST' as const } : null;
  const referTo = settings.refer_url ? { url: settings.refer_url, method: 'POST' as const } : null;
  const flow: Flow = { services, session, docUrl: null, format: settings.response_format, fallback, referTo };
  const recordingCallback = settings.recording.callback_url;
  if (!isOpen(settings.schedule, services.clock.now())) {
    const action = settings.after_hours;
    session.timeline('routing', { decision: 'after-hours', action: action.action });
    switch (action.action) {
      case 'hangup': return session.reject('unavailable', 'failed', 'after-hours');
      case 'voicemail': return voicemail(session, recordingCallback);
      case 'forward': return forward(session, action.number);
      case 'webhook': return runWebhook(flow, action.url);
    }
  }
  if (settings.ivr?.enabled) {
    session.timeline('routing', { decision: 'ivr' });
    return runIvr(session, settings.ivr, recordingCallback, services.acd);
  }
  session.timeline('routing', { decision: 'webhook' });
  if (!settings.webhook_url) {
    await failCall(flow, 'the number has no webhook URL');
    return;
  }
  return runWebhook(flow, settings.webhook_url);
}

/** The number webhook: POST {from, to, direction}, call SID in X-CPaaS-Call-Sid, markup back within 5 s. */
function runWebhook(flow: Flow, url: string): Promise<void> {
  const { call } = flow.session;
  return fetchAndRun(flow, url, 'POST', { from: call.from, to: call.to, direction: 'inbound' });
}

async function applyRecordingPolicy(session: CallSession, number: PhoneNumber): Promise<void> {
  const policy = number.settings.recording;
  if (policy.mode === 'off') return;
  const start = (early: boolean) => session.startRecording({
    source: 'call', tracks: policy.tracks, dualChannel: policy.tracks === 'both', callbackUrl: policy.callback_url, immutable: policy.immutable, early,
  }).then(() => undefined);
  if (policy.mode === 'from-ringing') await start(true);
  else session.onAnswered(() => start(false));
}
