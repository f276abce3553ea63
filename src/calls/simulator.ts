import type { SandboxEngine } from '../engine/sandbox/index.js';
import type { CallWatch } from './watch.js';
import type { CallSession } from './session.js';

/** The longest a simulated caller's answer to one speech prompt may be (characters). */
export const SAID_MAX = 200;

export interface SimulationRequest {
  from: string;
  to: string;
  /** Keys typed at each prompt for input, in order. */
  digits: string[];
  /** Words said to each speech <Gather>, in order, after its prompts ('' says nothing). */
  speech?: string[];
  /** The simulated caller hangs up after this long at most. */
  maxSeconds: number;
}

/** One step of a simulated call: what the caller experienced, or what the platform did. */
export type SimulationEvent =
  | { source: 'caller'; at_ms: number; type: string; [field: string]: unknown }
  | { source: 'platform'; at_ms: number; call_sid: string; type: string; detail: Record<string, unknown> };

/**
 * Places a sandbox inbound call through the normal call handling and reports every step as it happens:
 * the caller's transcript (heard, pressed, hang-up) interleaved with the platform's timeline (webhook
 * requests and replies, verbs, routing). Resolves when the call has ended.
 */
export async function simulateInbound(engine: SandboxEngine, watch: CallWatch, req: SimulationRequest, emit: (e: SimulationEvent) => void): Promise<{ callSid: string | null }> {
  let callSid: string | null = null;
  let engineCallId: string | null = null;
  // The engine's clock, the one the caller's transcript is timed on, so both sides interleave correctly.
  const started = engine.now();
  const early: Array<[string, string, Record<string, unknown>]> = [];
  const platform = (sid: string, kind: string, detail: Record<string, unknown>) =>
    emit({ source: 'platform', at_ms: engine.now() - started, call_sid: sid, type: kind, detail });

  // The engine may hand the call to the platform before simulateInbound returns its id: remember what was seen.
  const seen = new Map<string, CallSession>();
  let session: CallSession | undefined;
  const adopt = () => {
    if (callSid !== null || engineCallId === null || !seen.has(engineCallId)) return;
    session = seen.get(engineCallId)!;
    callSid = session.sid;
    for (const [sid, kind, detail] of early.splice(0)) if (sid === callSid) platform(sid, kind, detail);
  };
  const stopSessions = watch.onSession((started, id) => {
    if (id !== null) seen.set(id, started);
    adopt();
  });
  // The caller's side ends before the platform finishes the call (final state, cause): wait for its "ended" entry.
  let platformEnded!: () => void;
  const finished = new Promise<void>((resolve) => { platformEnded = resolve; });
  const stopTimeline = watch.onTimeline((sid, kind, detail) => {
    if (callSid === null) early.push([sid, kind, detail]);
    else if (sid === callSid) platform(sid, kind, detail);
    if (kind === 'ended' && sid === callSid) platformEnded();
  });
  try {
    const call = engine.simulateInbound({ from: req.from, to: req.to, caller: { gatherInput: req.digits, speechInput: req.speech ?? [], hangupAfterMs: req.maxSeconds * 1000, hangupBeforeAnswerAfterMs: req.maxSeconds * 1000 } });
    engineCallId = call.id;
    adopt();
    for (const e of call.transcript) emit({ ...e, source: 'caller', at_ms: e.at });
    const stopCaller = call.onEvent((e) => emit({ ...e, source: 'caller', at_ms: e.at }));
    await call.ended;
    stopCaller();
    if (callSid !== null && watch.live(callSid)) await finished;
    // Watchers hear entries before they are stored: "done" means the call's timeline can be read in full.
    await session?.timelineStored();
  } finally {
    stopSessions();
    stopTimeline();
  }
  return { callSid };
}
