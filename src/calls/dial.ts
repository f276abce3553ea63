import type { CallLeg, OriginateResult, OriginateTarget } from '../engine/port.js';
import type { RingTone } from '../markup/ring-tones.js';
import type { CallStatus } from '../store/calls.js';
import { newSid } from '../crypto/tokens.js';
import { CallSession } from './session.js';
import { vetOriginateTarget } from './sip-targets.js';
import { onAbort } from '../waits.js';
import { detectMachine } from './machine-detection.js';
import type { AnsweredBy, MachineDetectionSettings } from '../media/answering-machine.js';
import { carrierAttemptEntry } from './carrier-attempts.js';

export interface DialRequest {
  targets: OriginateTarget[];
  callerId: string;
  timeoutMs: number;
  record: 'do-not-record' | 'record-from-answer' | 'record-from-ringing';
  /** How long the bridge may last (ms); the dialled party is then hung up. */
  timeLimitMs?: number;
  /** Aborted by a redirect of the caller's document: the attempts are withdrawn, or the dialled party hung up. */
  signal?: AbortSignal;
  /** The ringback the caller hears while the targets ring (default us). */
  ringTone?: RingTone;
  /** The caller ends the bridge by pressing *: the dialled party is hung up and the caller goes on. */
  hangupOnStar?: boolean;
  /** A caller not answered yet is answered only when a target answers, with ringback as early media until then. */
  answerOnBridge?: boolean;
  /**
   * Asked once target `index` answers, before it is connected (its sendDigits, its screening document, run on
   * `party`): false declines it, and the Dial goes on waiting for the other targets.
   */
  accept?: (index: number, party: CallSession) => Promise<boolean>;
  /** Answering-machine detection on target `index` once it answers, before accept and the bridge (null: none). */
  machineDetection?: Array<MachineDetectionSettings | null>;
  /** Called as the bridge starts (a transfer either side may ask for is heard there); ended with the bridge. */
  whileBridged?: (caller: CallLeg, party: CallSession) => BridgeWatch;
}

export interface BridgeWatch {
  /** The bridge is over: stop watching. True when the party was handed over (it keeps its line: not hung up). */
  end(): boolean;
}

export interface DialOutcome {
  status: Exclude<CallStatus, 'queued' | 'ringing' | 'in-progress'>;
  childSid: string | null;
  duration: number;
  /** What answered the party bridged, when it was dialled with machine detection; else null. */
  answeredBy: AnsweredBy | null;
}

const addressOf = (t: OriginateTarget): string =>
  t.kind === 'number' ? t.number : t.kind === 'sip' ? t.uri : t.kind === 'client' ? `client:${t.identity}` : `trunk:${t.endpointName}`;

// When every attempt failed, the most telling outcome wins: someone busy beats nobody answering beats errors.
const FAILURE_RANK: Array<DialOutcome['status']> = ['busy', 'no-answer', 'failed', 'canceled'];

/**
 * Rings every target at once; the first to answer is bridged to the caller and the rest are withdrawn.
 * Each attempt is its own child call (direction outbound-dial) so it appears in the call log. With answerOnBridge,
 * a caller not answered yet stays so until a target answers, hearing the ringback as early media; if none
 * answers, the caller is still unanswered when the document goes on.
 */
export async function dial(parent: CallSession, req: DialRequest): Promise<DialOutcome> {
  const early = req.answerOnBridge ? parent.unanswered : null;
  let caller = early ? null : await parent.answer();
  const { store, engine } = parent.services;
  const attempts = req.targets.map((target) => ({ sid: newSid('CA'), target, abort: new AbortController() }));
  for (const a of attempts) {
    await store.calls.create({ sid: a.sid, accountId: parent.accountId, direction: 'outbound-dial', from: req.callerId, to: addressOf(a.target), status: 'queued', parentSid: parent.sid });
  }
  parent.timeline('dial', { targets: attempts.map((a) => ({ call_sid: a.sid, to: addressOf(a.target) })), ...(early ? { answer_on_bridge: true } : {}) });
  const recording = req.record === 'record-from-ringing' ? await startDialRecording(parent, early !== null) : undefined;
  const cancelAll = () => attempts.forEach((a) => a.abort.abort());
  caller?.on('hangup', cancelAll);
  void early?.ended.then(cancelAll);
  const callerGone = () => caller?.isEnded ?? parent.ended;
  /** Another target won, the caller left or a redirect came: an answer now is too late. */
  const stale = () => winner !== undefined || callerGone() || req.signal?.aborted === true;
  /** A target that answered too late is hung up and its call closed. */
  const dropAnswered = async (sid: string, leg: CallLeg) => {
    await leg.hangup();
    await store.calls.finish(sid, 'canceled', 'canceled');
  };
  /** Hangs up an answered party (declined, too late, or its bridge over) and gives its call's final state. */
  const release = async (party: CallSession) => {
    const leg = party.leg!;
    await leg.hangup();
    return party.finish(await leg.ended);
  };
  let winner: { sid: string; leg: CallLeg; party: CallSession; answeredBy: AnsweredBy | null } | undefined;
  const redirected = () => {
    cancelAll();
    winner?.leg.hangup().catch((err: unknown) => parent.log.warn({ err }, 'dialled leg not hung up at the redirect'));
  };
  // A redirect that came before this point (while the caller was answered or the attempts stored) withdraws them too.
  const stopWatching = onAbort(req.signal, redirected);
  try {
    return await connectFirst();
  } finally {
    caller?.off('hangup', cancelAll);
    stopWatching();
  }

  /**
   * req.accept for an answered target; while it runs, the target is hung up should it go stale (another target
   * won, the caller left, a redirect). A target declined, or gone meanwhile, has its call finished.
   */
  async function accepted(a: (typeof attempts)[number], index: number, party: CallSession): Promise<boolean> {
    const leg = party.leg!;
    const stopWatching = onAbort(a.abort.signal, () => { void leg.hangup(); });
    const yes = await req.accept!(index, party).catch((err: unknown) => {
      parent.log.warn({ err }, 'dialled party not accepted: its check failed');
      return false;
    });
    stopWatching();
    if (yes && !leg.isEnded) return true;
    parent.timeline('dial-declined', { call_sid: a.sid });
    await release(party);
    return false;
  }

  async function connectFirst(): Promise<DialOutcome> {
    // The caller hears ringback while the targets ring, as on any phone network; it stops before the bridge.
    const ringing = new AbortController();
    const ringback = early ? early.earlyRingback(req.ringTone ?? 'us', ringing.signal) : caller!.ringback(req.ringTone ?? 'us');
    const results = await Promise.all(attempts.map(async (a, index) => {
      const vetted = await vetOriginateTarget(parent.services, parent.accountId, a.target);
      if (!vetted.ok) {
        parent.timeline('dial-target-refused', { call_sid: a.sid, to: addressOf(a.target), reason: vetted.reason });
        await store.calls.finish(a.sid, 'failed', 'failed');
        return { a, status: 'failed' as const };
      }
      const result: OriginateResult = await engine.originate({
        target: vetted.target, callerId: req.callerId, timeoutMs: req.timeoutMs, signal: a.abort.signal, bridgeWith: caller ?? early!,
        onCarrierAttempt: (attempt) => void parent.timeline('carrier-attempt', { call_sid: a.sid, ...carrierAttemptEntry(attempt) }),
        onRinging: () => { store.calls.setStatus(a.sid, 'ringing').catch((err: unknown) => parent.log.warn({ err }, 'ringing status not stored')); },
      });
      if (result.answered) {
        if (stale()) {
          await dropAnswered(a.sid, result.leg);
          return { a, status: 'canceled' as const };
        }
        const party = new CallSession(parent.services, (await store.calls.get(a.sid))!, undefined, result.leg);
        await store.calls.markAnswered(a.sid);
        const detection = req.machineDetection?.[index];
        // The caller keeps hearing ringback while detection listens; the result stays on the party's call.
        const answeredBy = detection ? await detectMachine(party, detection) : null;
        if (req.accept && !(await accepted(a, index, party))) return { a, status: 'no-answer' as const };
        if (stale()) {
          await release(party);
          return { a, status: 'canceled' as const };
        }
        winner = { sid: a.sid, leg: result.leg, party, answeredBy };
        attempts.filter((o) => o !== a).forEach((o) => o.abort.abort());
        return { a, status: 'completed' as const };
      }
      const status = result.cause === 'rejected' ? 'busy' : result.cause;
      await store.calls.finish(a.sid, status, result.cause);
      return { a, status };
    }));
    ringing.abort();
    await caller?.stopMedia();
    await ringback;
    // answerOnBridge: the caller is answered now that a target has (a caller gone meanwhile cannot be).
    if (winner && !caller) caller = await parent.answer().catch(() => null);

    if (!winner || !caller) {
      if (winner) await release(winner.party);
      if (recording) await parent.stopRecording(recording);
      const status = FAILURE_RANK.find((s) => results.some((r) => r.status === s)) ?? 'failed';
      return { status: callerGone() || req.signal?.aborted || winner ? 'canceled' : status, childSid: null, duration: 0, answeredBy: null };
    }
    const bridged = caller;
    const answerRecording = req.record === 'record-from-answer' ? await startDialRecording(parent, false) : recording;
    parent.timeline('dial-answered', { call_sid: winner.sid });
    const answered = winner;
    const limit = req.timeLimitMs === undefined ? undefined : parent.services.clock.setTimeout(() => {
      parent.timeline('dial-time-limit', { call_sid: answered.sid, seconds: req.timeLimitMs! / 1000 });
      answered.leg.hangup().catch((err: unknown) => parent.log.warn({ err }, 'dialled leg not hung up at its time limit'));
    }, req.timeLimitMs);
    const onKey = (key: string) => {
      if (key !== '*') return;
      parent.timeline('dial-hangup-on-star', { call_sid: answered.sid });
      answered.leg.hangup().catch((err: unknown) => parent.log.warn({ err }, 'dialled leg not hung up on *'));
    };
    if (req.hangupOnStar) bridged.on('dtmf', onKey);
    const watch = req.whileBridged?.(bridged, winner.party);
    const bridgedAt = parent.services.clock.now();
    await bridged.bridge(winner.leg);
    const handedOver = watch?.end() ?? false;
    bridged.off('dtmf', onKey);
    if (limit) parent.services.clock.clearTimeout(limit);
    if (answerRecording) await parent.stopRecording(answerRecording);
    const { answeredBy } = winner;
    if (handedOver) return { status: 'completed', childSid: winner.sid, duration: Math.round((parent.services.clock.now() - bridgedAt) / 1000), answeredBy };
    const final = await release(winner.party);
    return { status: 'completed', childSid: winner.sid, duration: final.duration ?? 0, answeredBy };
  }
}

/** `early`: the caller is not answered yet (answerOnBridge), so recording from ringing records its early media. */
function startDialRecording(parent: CallSession, early: boolean) {
  return parent.startRecording({ source: 'dial', tracks: 'both', dualChannel: false, callbackUrl: null, immutable: false, early });
}
