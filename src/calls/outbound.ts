import type { CallLeg, OriginateTarget } from '../engine/port.js';
import type { CallRecord } from '../store/calls.js';
import { newSid } from '../crypto/tokens.js';
import type { CallServices } from './services.js';
import { CallSession } from './session.js';
import { trackStatusCallbacks, type StatusCallbackTarget } from './call-status-events.js';
import { vetOriginateTarget } from './sip-targets.js';
import { detectMachine } from './machine-detection.js';
import type { AnsweredBy, MachineDetectionSettings } from '../media/answering-machine.js';
import { carrierAttemptEntry } from './carrier-attempts.js';

export interface PlaceCall {
  accountId: number;
  from: string;
  to: string;
  target: OriginateTarget;
  numberId: number | null;
  trunkId: number | null;
  /**
   * What runs on the answered call: its markup (src/flows/outbound.ts), or the platform's own task; after
   * answering-machine detection when the placement asked for it (`answeredBy`: its result, else null).
   */
  onAnswered: (session: CallSession, answer: { answeredBy: AnsweredBy | null }) => Promise<void>;
  callback: StatusCallbackTarget | null;
  timeoutMs: number;
  record: { tracks: 'inbound' | 'outbound' | 'both'; dualChannel: boolean; immutable: boolean; callbackUrl: string | null } | null;
  /** When the placement was admitted (its calls-per-second slot); the call's created_at. */
  admittedAtMs?: number;
  /** The call's sid when the caller needs it before the call exists (a participant row names it). */
  sid?: string;
  /** Aborting withdraws the call while it rings (a conference that ended before the participant answered). */
  signal?: AbortSignal;
  /** The leg this call will talk with (an agent's, for a scheduled callback): its media server is preferred. */
  bridgeWith?: CallLeg;
  /** Answering-machine detection once answered, before onAnswered (docs/speech.md). */
  machineDetection?: MachineDetectionSettings | null;
}

/**
 * Places a call: it is stored (queued) before anything else, so it exists even if the process dies right after;
 * the engine then dials, and once answered `onAnswered` runs on it. Returns at once.
 */
export async function placeCall(services: CallServices, req: PlaceCall): Promise<{ call: CallRecord; done: Promise<void> }> {
  const call = await services.store.calls.create({
    sid: req.sid ?? newSid('CA'), accountId: req.accountId, direction: 'outbound-api', from: req.from, to: req.to, status: 'queued',
    numberId: req.numberId, trunkId: req.trunkId, ...(req.admittedAtMs !== undefined ? { createdAtMs: req.admittedAtMs } : {}),
    ...(req.callback ? { callbackUrl: req.callback.url, callbackEvents: [...req.callback.events], callbackMethod: req.callback.method } : {}),
  });
  const session = new CallSession(services, call, undefined);
  const progress = req.callback ? trackStatusCallbacks(session, req.callback) : () => undefined;
  progress('initiated');
  const done = run(session, req, progress).catch(async (err: unknown) => {
    session.log.error({ err }, 'outbound call flow failed');
    await session.hangup('internal-error').catch(() => undefined);
  });
  return { call, done };
}

async function run(session: CallSession, req: PlaceCall, progress: (e: 'ringing' | 'in-progress') => void): Promise<void> {
  const { engine, store } = session.services;
  session.timeline('originate', { to: req.to, timeout_ms: req.timeoutMs });
  const vetted = await vetOriginateTarget(session.services, req.accountId, req.target);
  if (!vetted.ok) {
    session.timeline('target-refused', { to: req.to, reason: vetted.reason });
    await session.finish({ cause: 'failed', by: 'remote' });
    return;
  }
  const signal = req.signal ? AbortSignal.any([req.signal, session.withdrawn]) : session.withdrawn;
  const result = await engine.originate({
    target: vetted.target, callerId: req.from, timeoutMs: req.timeoutMs, signal, ...(req.bridgeWith ? { bridgeWith: req.bridgeWith } : {}),
    onCarrierAttempt: (a) => void session.timeline('carrier-attempt', carrierAttemptEntry(a)),
    onRinging: () => {
      store.calls.setStatus(session.sid, 'ringing').catch((err: unknown) => session.log.warn({ err }, 'ringing status not stored'));
      progress('ringing');
    },
  });
  if (!result.answered) {
    session.timeline('originate-failed', { cause: result.cause, sip_status: result.sipStatus ?? null });
    await session.finish({ cause: result.cause, by: 'remote', ...(result.sipStatus ? { sipStatus: result.sipStatus } : {}) });
    return;
  }
  await session.adopt(result.leg);
  // Withdrawn as it was answered: the answer won the race, so the answered call is hung up instead.
  if (session.withdrawn.aborted) return session.hangup();
  progress('in-progress');
  if (req.record) await session.startRecording({ source: 'call', ...req.record });
  const answeredBy = req.machineDetection ? await detectMachine(session, req.machineDetection) : null;
  if (session.ended) return;
  await req.onAnswered(session, { answeredBy });
}
