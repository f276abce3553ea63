import type { IncomingCall } from '../engine/port.js';
import type { Trunk } from '../store/trunks.js';
import { newSid } from '../crypto/tokens.js';
import { parseMarkup, MarkupError, type Verb } from '../markup/index.js';
import type { FlowServices } from './services.js';
import { CallSession } from '../calls/session.js';
import { WEBHOOK_REPLY_BUDGET_MS } from './markup-fetch.js';
import { failCall, type Flow } from './flow.js';
import { fetchAndRun, runMarkup } from './interpreter.js';
import { dial } from '../calls/dial.js';
import { BridgeTransfers } from './transfers.js';
import { trackStatusCallbacks } from '../calls/call-status-events.js';

type CallerIdChoice = { kind: 'caller-id'; callerId: string | null; reason: string } | { kind: 'markup'; flow: Flow; verbs: Verb[] };

/**
 * A call a PBX or agent places over its trunk. voice_webhook_url, when set, runs the call with its XML.
 * Otherwise the call goes on to its destination with a caller ID chosen by cli_lookup_url (5 s; `{callerId}` or
 * a whole <Response>), checked against allowed_caller_ids, falling back to default_caller_id.
 */
export async function handleTrunkCall(services: FlowServices, incoming: IncomingCall): Promise<CallSession | undefined> {
  const endpointName = incoming.source.kind === 'trunk' ? incoming.source.endpointName : incoming.source.kind === 'client' ? incoming.source.identity : '';
  const trunk = await services.store.trunks.getByEndpointName(endpointName);
  if (!trunk || trunk.status === 'revoked' || trunk.status === 'suspended') {
    services.log.info({ endpointName, status: trunk?.status ?? 'unknown' }, 'call from a trunk that may not place calls; refused');
    await incoming.reject('rejected');
    return undefined;
  }
  const session = new CallSession(services, await services.store.calls.create({
    sid: newSid('CA'), accountId: trunk.accountId, direction: 'trunk', from: incoming.from, to: incoming.to, status: 'ringing', trunkId: trunk.id,
  }), incoming);
  const progress = trunk.status_callback_url
    ? trackStatusCallbacks(session, {
      url: trunk.status_callback_url, method: 'POST', events: new Set(trunk.status_callback_events.split(/\s+/)),
      extra: { TrunkId: String(trunk.id), EndpointName: trunk.endpoint_name },
    })
    : () => undefined;
  progress('initiated');
  await incoming.ring();
  progress('ringing');
  session.onAnswered(async () => {
    progress('in-progress');
    if (trunk.dual_channel_recording) {
      await session.startRecording({ source: 'call', tracks: 'both', dualChannel: true, callbackUrl: null, immutable: false });
    }
  });
  await route(services, session, trunk).catch(async (err: unknown) => {
    session.log.error({ err }, 'trunk call flow failed');
    await session.hangup('internal-error').catch(() => undefined);
  });
  return session;
}

async function route(services: FlowServices, session: CallSession, trunk: Trunk): Promise<void> {
  const fallback = trunk.voice_fallback_url ? { url: trunk.voice_fallback_url, method: trunk.voice_fallback_method } : null;
  const referTo = trunk.voice_refer_url ? { url: trunk.voice_refer_url, method: trunk.voice_refer_method } : null;
  const flow: Flow = { services, session, docUrl: null, format: 'xml', fallback, referTo };
  const { call } = session;
  const payload = { from: call.from, to: call.to, direction: 'trunk', call_sid: call.sid, trunk_id: trunk.id, endpoint_name: trunk.endpoint_name };

  if (trunk.voice_webhook_url) {
    session.timeline('routing', { decision: 'voice-webhook' });
    return fetchAndRun(flow, trunk.voice_webhook_url, trunk.voice_webhook_method, payload);
  }

  const choice = await chooseCallerId(session, trunk, flow, payload);
  if (choice.kind === 'markup') return runMarkup(choice.flow, choice.verbs);
  session.timeline('caller-id', { caller_id: choice.callerId, reason: choice.reason });
  if (!choice.callerId) return void (await failCall(flow, 'no caller ID: the lookup gave none and the trunk has no default_caller_id'));
  const transfers = referTo ? new BridgeTransfers(flow, referTo) : null;
  await dial(session, {
    targets: [{ kind: 'number', number: call.to }], callerId: choice.callerId, timeoutMs: 60_000, record: 'do-not-record',
    ...(transfers ? { whileBridged: transfers.watch } : {}),
  });
  if (await transfers?.runHandover(runMarkup)) return;
  await session.hangup('dial-done');
}

async function chooseCallerId(session: CallSession, trunk: Trunk, flow: Flow, payload: Record<string, unknown>): Promise<CallerIdChoice> {
  const fallback = (reason: string): CallerIdChoice => ({ kind: 'caller-id', callerId: trunk.default_caller_id, reason });
  if (!trunk.cli_lookup_url) return fallback('default: no lookup URL');
  const result = await session.services.http.send({
    accountId: session.accountId, url: trunk.cli_lookup_url, method: trunk.cli_lookup_method,
    payload: { kind: 'json', body: payload }, timeoutMs: WEBHOOK_REPLY_BUDGET_MS,
  }).catch((err: Error) => err);
  if (result instanceof Error) {
    session.timeline('cli-lookup', { error: result.message });
    return fallback('default: lookup failed');
  }
  session.timeline('cli-lookup', { status: result.status, latency_ms: Math.round(result.latencyMs) });
  if (result.status < 200 || result.status >= 300) return fallback(`default: lookup answered HTTP ${result.status}`);
  const text = result.body.toString('utf8').trim();
  if (text.startsWith('<')) {
    try {
      const voices = await session.services.voices.book(session.accountId);
      return { kind: 'markup', flow: { ...flow, docUrl: trunk.cli_lookup_url }, verbs: parseMarkup(text, 'xml', { voices }) };
    } catch (err) {
      if (!(err instanceof MarkupError)) throw err;
      return fallback('default: lookup answered invalid markup');
    }
  }
  let callerId: unknown;
  try {
    callerId = (JSON.parse(text) as { callerId?: unknown }).callerId;
  } catch {
    return fallback('default: lookup answered neither JSON nor XML');
  }
  if (typeof callerId !== 'string' || callerId === '') return fallback('default: lookup gave no callerId');
  if (trunk.allowed_caller_ids && !trunk.allowed_caller_ids.includes(callerId)) {
    session.timeline('caller-id-refused', { caller_id: callerId });
    return fallback(`default: ${callerId} is not in allowed_caller_ids`);
  }
  return { kind: 'caller-id', callerId, reason: 'lookup' };
}
