// Callbacks of a queue with answering-machine detection (docs/acd.md, "Machines"): the customer is dialled first,
// while the agent the router reserved for the callback waits unrung, and what answered decides. A person (or an
// answer nobody could tell) takes the callback's place in line and is offered to agents as any caller is; a machine
// is never put through to an agent: the attempt is retried, or the queue's message is said once the greeting has
// ended; a fax fails the callback for good.
import { placeCall } from '../calls/outbound.js';
import { PLATFORM_VOICE } from '../calls/platform-voice.js';
import type { CallSession } from '../calls/session.js';
import { MACHINE_DETECTION_DEFAULTS, type AnsweredBy } from '../media/answering-machine.js';
import type { OpenCallback } from './callbacks.js';
import type { Queue } from './queues.js';
import type { Offer } from './routing.js';
import type { AcdService } from './service.js';
import type { AcdServices } from './services.js';

/** How an attempt whose customer answered ended. */
export type AnsweredAttempt =
  | { kind: 'talked'; agentSid: string | null }
  | { kind: 'message-left' }
  | { kind: 'failed'; error: string; retry: boolean };

export interface CustomerFirst {
  callback: OpenCallback;
  callSid: string;
  /** The agent reserved for the callback: let go once a person answered, so that the queue offers the customer. */
  offer: Offer;
  queue: Queue & { machineDetection: NonNullable<Queue['machineDetection']> };
  numberId: number;
  ringMs: number;
}

/** Dials the customer with detection; null when nobody answered (the call's status says how it ended). */
export async function dialCustomerFirst(services: AcdServices, acd: Pick<AcdService, 'router' | 'wait'>, c: CustomerFirst): Promise<AnsweredAttempt | null> {
  const { callback, queue } = c;
  let answered: AnsweredAttempt | null = null;
  const { done } = await placeCall(services, {
    sid: c.callSid, accountId: callback.accountId, from: callback.from, to: callback.to, target: { kind: 'number', number: callback.to },
    numberId: c.numberId, trunkId: null, callback: null, timeoutMs: c.ringMs, record: null,
    machineDetection: { mode: queue.machineDetection, ...MACHINE_DETECTION_DEFAULTS },
    onAnswered: async (customer, { answeredBy }) => {
      answered = await afterDetection(acd, c, customer, answeredBy ?? 'unknown');
      await customer.hangup('hangup');
    },
  });
  await done;
  return answered;
}

async function afterDetection(acd: Pick<AcdService, 'router' | 'wait'>, c: CustomerFirst, customer: CallSession, answeredBy: AnsweredBy): Promise<AnsweredAttempt> {
  const { queue } = c;
  if (answeredBy === 'fax') return { kind: 'failed', error: 'a fax machine answered', retry: false };
  if (answeredBy.startsWith('machine_')) {
    const leaveMessage = queue.machineAction === 'message' && queue.machineMessage !== null;
    customer.timeline('callback-machine', { callback_sid: c.callback.sid, answered_by: answeredBy, action: leaveMessage ? 'message' : 'retry' });
    if (!leaveMessage) return { kind: 'failed', error: `a machine answered (${answeredBy})`, retry: true };
    await customer.leg!.say(queue.machineMessage!, PLATFORM_VOICE);
    return { kind: 'message-left' };
  }
  await acd.router.withdraw(c.offer);
  const waited = await acd.wait(customer, { queue: queue.sid, inLine: true });
  if (waited.result === 'bridged' || waited.result === 'redirected-from-bridged') return { kind: 'talked', agentSid: waited.agentSid };
  const error = waited.result === 'timeout'
    ? "no agent took the customer within the queue's maximum wait"
    : `the customer left the line before an agent answered (${waited.result})`;
  return { kind: 'failed', error, retry: true };
}
