import type { HangupVerb, RejectVerb } from '../../markup/index.js';
import type { Flow, Outcome } from '../flow.js';

export async function hangupVerb(flow: Flow, _verb: HangupVerb): Promise<Outcome> {
  await flow.session.hangup('markup-hangup');
  return { kind: 'end' };
}

/** Refuses an unanswered call (busy → status busy, rejected → no-answer); once answered it is a plain hang-up. */
export async function rejectVerb(flow: Flow, verb: RejectVerb): Promise<Outcome> {
  const { session } = flow;
  if (session.leg) await session.hangup('markup-reject');
  else await session.reject(verb.reason, verb.reason === 'busy' ? 'busy' : 'no-answer', `markup-reject-${verb.reason}`);
  return { kind: 'end' };
}
