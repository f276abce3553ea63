// The life of an outbound attempt against a scripted party: ringing, then an answer, a refusal, the request's
// timeout or the caller's abort, whichever comes first. Every way out ends in a resolved result.
import { isEngineLost, type HangupInfo, type OriginateRequest, type OriginateResult } from '../port.js';
import { SandboxLeg } from './leg.js';
import type { Line } from './line.js';
import { DEFAULT_RING_MS, RINGING_AFTER_MS } from './media-timing.js';
import type { PartyScript } from './party.js';

type Refusal = { reason: 'busy' | 'rejected' | 'unavailable'; info: HangupInfo };

const REFUSALS: Partial<Record<PartyScript['behavior'], Refusal>> = {
  busy: { reason: 'busy', info: { cause: 'busy', by: 'remote', sipStatus: 486 } },
  fail: { reason: 'unavailable', info: { cause: 'failed', by: 'remote', sipStatus: 503 } },
  reject: { reason: 'rejected', info: { cause: 'rejected', by: 'remote', sipStatus: 603 } },
};

/** An attempt that ends before answer reports why; an engine shutting down counts as withdrawn, a lost one as failed. */
function failure({ cause, sipStatus }: HangupInfo): OriginateResult {
  const reported = cause === 'normal' || cause === 'caller-hangup' ? 'canceled'
    : isEngineLost(cause) ? 'failed' : cause;
  return { answered: false, cause: reported, ...(sipStatus === undefined ? {} : { sipStatus }) };
}

export function dial(line: Line, script: PartyScript, req: OriginateRequest): Promise<OriginateResult> {
  return new Promise((resolve) => {
    const cancel = () => line.end({ cause: 'canceled', by: 'local' });
    const stopWatching = line.onEnd((info) => {
      req.signal?.removeEventListener('abort', cancel);
      resolve(failure(info));
    });
    if (req.signal?.aborted) return cancel();
    req.signal?.addEventListener('abort', cancel, { once: true });

    const timeout = line.schedule(req.timeoutMs, () => line.end({ cause: 'no-answer', by: 'local' }));
    const respondAt = script.behavior === 'no-answer' ? Infinity : script.ringMs ?? DEFAULT_RING_MS;
    const rings = script.behavior === 'answer' || script.behavior === 'reject' || script.behavior === 'no-answer';
    if (rings && RINGING_AFTER_MS < Math.min(respondAt, req.timeoutMs)) {
      line.schedule(RINGING_AFTER_MS, () => {
        line.ring();
        try { req.onRinging?.(); } catch { /* a broken callback must not break the call */ }
      });
    }
    if (respondAt >= req.timeoutMs) return;

    line.schedule(respondAt, () => {
      const refusal = REFUSALS[script.behavior];
      if (refusal) {
        line.transcript.add({ type: 'rejected', reason: refusal.reason });
        line.end(refusal.info);
        return;
      }
      const answer = () => {
        if (line.isEnded) return;
        stopWatching();
        line.cancel(timeout);
        req.signal?.removeEventListener('abort', cancel);
        const leg = new SandboxLeg(line);
        line.answer();
        resolve({ answered: true, leg });
      };
      if (script.answerAfter) void script.answerAfter.then(answer);
      else answer();
    });
  });
}
