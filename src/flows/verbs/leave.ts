import type { LeaveVerb } from '../../markup/index.js';
import type { Flow, Outcome } from '../flow.js';

/**
 * <Leave> belongs in a queue's wait document (src/flows/hold-documents.ts), where it takes the caller out of the
 * line. In a call's own document there is no queue to leave: the timeline says so and the document goes on.
 */
export async function leaveVerb(flow: Flow, _verb: LeaveVerb): Promise<Outcome> {
  flow.session.timeline('leave-outside-queue', {});
  return { kind: 'next' };
}
