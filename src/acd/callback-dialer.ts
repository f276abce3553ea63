// Scheduled callbacks coming due: each is claimed once (the callback event goes out in the same transaction), then
// waits in its queue like a caller, as the customer call it will become. The agent the router picks is rung first;
// once the agent answers, the customer is dialled and joins the agent's room. An attempt that finds no agent within
// the queue's maximum wait, or a customer who does not answer, is retried later (docs/acd.md: retry policy).
import type { AcdServices } from './services.js';
import { placeCall } from '../calls/outbound.js';
import type { TimerHandle } from '../clock.js';
import { newSid } from '../crypto/tokens.js';
import { emitCallbackDue } from '../events/acd.js';
import { checkCallerId } from '../numbers/caller-id.js';
import type { SqlQueries } from '../store/sql.js';
import type { OpenCallback } from './callbacks.js';
import type { Offer } from './routing.js';
import type { AcdService, Talking } from './service.js';
import { dialCustomerFirst, type AnsweredAttempt } from './callback-detection.js';
import type { Queue } from './queues.js';

export const CALLBACK_MAX_ATTEMPTS = 3;
export const CALLBACK_RETRY_MS = 5 * 60_000;
/** How long the customer's phone rings once the agent is on the line. */
export const CUSTOMER_RING_MS = 30_000;
const CLAIM_BATCH = 50;
const callerIdFailure = (problem: string) => `${problem}: the callback is not made (its caller ID must be an active number of the account when it dials)`;

interface Job { callback: OpenCallback; callSid: string; noAgent: TimerHandle | null; offered: boolean; talking: Talking | null }

export class CallbackDialer {
  readonly #jobs = new Map<string, Job>();

  constructor(
    private readonly services: AcdServices,
    private readonly acd: Pick<AcdService, 'router' | 'seats' | 'agentCallEnded' | 'kick' | 'wait'>,
    private readonly room: (callSid: string) => string,
  ) {}

  /** Whether the queued customer call is a callback this process dials and no agent is being rung for it. */
  waiting(callSid: string): boolean { return this.#jobs.get(callSid)?.offered === false; }

  /** The agent and the customer of a callback talking now (a supervisor may join them), if this process carries it. */
  talking(callSid: string): Talking | undefined { return this.#jobs.get(callSid)?.talking ?? undefined; }

  /** The queues with a callback waiting for an agent (tried again on every sweep, like callers). */
  waitingQueues(): number[] {
    return [...this.#jobs.values()].filter((j) => !j.offered).map((j) => j.callback.queueId);
  }

  /**
   * Claims what is due; returns the queues that have a callback waiting for an agent now. A callback whose caller
   * ID is no longer the account's fails for good as it is claimed (its event says why): nobody is rung.
   */
  async claimDue(): Promise<number[]> {
    const { store, events, clock } = this.services;
    const unplaceable = new Set<string>();
    const claimed = (await store.scheduledCallbacks.claimDue(CLAIM_BATCH, async (tx, c) => {
      // The caller ID check reads the number, and the event is written, inside the claim's transaction.
      const problem = await this.#callerIdProblem(c, tx);
      if (problem) {
        unplaceable.add(c.sid);
        await store.scheduledCallbacks.attemptFailed(c.sid, problem, null, tx);
      }
      await emitCallbackDue(events, { accountId: c.accountId, callbackSid: c.sid, phone: c.to, dueAt: new Date(c.dueAt), campaign: c.queueName, failed: problem }, tx);
    })).filter((c) => !unplaceable.has(c.sid));
    for (const callback of claimed) {
      const job: Job = { callback, callSid: newSid('CA'), noAgent: null, offered: false, talking: null };
      await store.scheduledCallbacks.attempt(callback.sid, job.callSid, null);
      this.#jobs.set(job.callSid, job);
      await this.acd.router.enqueue(job.callSid, callback.queueId);
      const queue = (await store.queues.find(callback.accountId, callback.queueSid))!;
      job.noAgent = clock.setTimeout(() => void this.#noAgent(job), queue.maxWaitSeconds * 1000);
    }
    return [...new Set(claimed.map((c) => c.queueId))];
  }

  /** Callbacks a process that is gone left dialing are scheduled again (the attempt counts), their queue places given up. */
  async recover(): Promise<void> {
    const mine = new Set([...this.#jobs.values()].map((j) => j.callback.sid));
    for (const c of await this.services.store.scheduledCallbacks.requeueDialing((sid) => mine.has(sid))) {
      if (c.callSid) await this.acd.router.leave(c.callSid);
    }
  }

  /**
   * The router reserved an agent for a callback: ring the agent, then the customer, and let them talk; with machine
   * detection on the queue, the customer first (src/acd/callback-detection.ts).
   */
  async offer(offer: Offer): Promise<void> {
    const job = this.#jobs.get(offer.callSid)!;
    const { store } = this.services;
    const { callback } = job;
    const queue = (await store.queues.find(callback.accountId, callback.queueSid))!;
    job.offered = true;
    if (queue.machineDetection) {
      await this.#customerFirst(job, offer, { ...queue, machineDetection: queue.machineDetection });
      return;
    }
    const ring = await this.acd.seats.ring(offer, { from: callback.from, parentSid: job.callSid, queue, signal: new AbortController().signal, wanted: () => this.#jobs.has(job.callSid) });
    if (ring.kind !== 'answered') {
      // Waiting again (a miss, an agent gone on break): the next agent is tried now.
      job.offered = false;
      await this.acd.kick(queue.id);
      return;
    }
    if (job.noAgent) this.services.clock.clearTimeout(job.noAgent);
    await store.scheduledCallbacks.attempt(callback.sid, job.callSid, offer.agentSid);
    const agentLeg = ring.leg;
    // The number may have been released while the agent's seat rang: the customer is not dialled from it.
    const caller = await checkCallerId(store.numbers, callback.accountId, callback.from);
    if (!caller.ok) {
      await agentLeg.hangup();
      await ring.session.finish(await agentLeg.ended);
      this.#jobs.delete(job.callSid);
      await store.scheduledCallbacks.attemptFailed(callback.sid, callerIdFailure(caller.problem), null);
      await this.acd.agentCallEnded(offer, job.callSid, callback.accountId, 0);
      return;
    }
    const agentMember = await agentLeg.joinConference(this.room(job.callSid), { muted: false }).catch(() => null);
    // The agent hanging up while the customer's phone rings withdraws the call.
    const withdraw = new AbortController();
    void agentLeg.ended.then(() => withdraw.abort());
    let talked = false;
    const { done } = await placeCall(this.services, {
      sid: job.callSid, accountId: callback.accountId, from: callback.from, to: callback.to, target: { kind: 'number', number: callback.to },
      numberId: caller.number.id, trunkId: null, callback: null, timeoutMs: CUSTOMER_RING_MS, record: null,
      signal: withdraw.signal, bridgeWith: agentLeg,
      onAnswered: async (customer) => {
        talked = true;
        customer.timeline('callback-bridged', { callback_sid: callback.sid, agent_sid: offer.agentSid, agent_call_sid: ring.childSid });
        const member = await customer.leg!.joinConference(this.room(job.callSid), { muted: false });
        if (agentMember) job.talking = { customer, agentLeg, agentMember };
        await Promise.race([member.left, agentLeg.ended]);
        job.talking = null;
        await customer.hangup('hangup');
      },
    });
    await done;
    if (!agentLeg.isEnded) await agentLeg.hangup();
    await ring.session.finish(await agentLeg.ended);
    await agentMember?.leave().catch(() => undefined);
    this.#jobs.delete(job.callSid);
    if (talked) await store.scheduledCallbacks.complete(callback.sid);
    else await this.#failed(callback, await this.#notAnswered(job.callSid));
    await this.acd.agentCallEnded(offer, job.callSid, callback.accountId, talked ? queue.wrapUpSeconds : 0);
  }

  /**
   * The customer is dialled while the reserved agent waits unrung; a person joins the line in the callback's place.
   * Whatever happened, the callback's place and the agent's reservation are given up at the end (a no-op once a
   * person was taken by an agent or left the line).
   */
  async #customerFirst(job: Job, offer: Offer, queue: Queue & { machineDetection: NonNullable<Queue['machineDetection']> }): Promise<void> {
    const { store, clock } = this.services;
    const { callback } = job;
    if (job.noAgent) clock.clearTimeout(job.noAgent);
    const caller = await checkCallerId(store.numbers, callback.accountId, callback.from);
    const answered: AnsweredAttempt | null = caller.ok
      ? await dialCustomerFirst(this.services, this.acd, { callback, callSid: job.callSid, offer, queue, numberId: caller.number.id, ringMs: CUSTOMER_RING_MS })
      : { kind: 'failed', error: callerIdFailure(caller.problem), retry: false };
    if (await this.acd.router.leave(job.callSid)) await this.acd.kick(queue.id);
    this.#jobs.delete(job.callSid);
    if (answered === null) await this.#failed(callback, await this.#notAnswered(job.callSid));
    else if (answered.kind === 'failed' && answered.retry) await this.#failed(callback, answered.error);
    else if (answered.kind === 'failed') await store.scheduledCallbacks.attemptFailed(callback.sid, answered.error, null);
    else {
      if (answered.kind === 'talked') await store.scheduledCallbacks.attempt(callback.sid, job.callSid, answered.agentSid);
      await store.scheduledCallbacks.complete(callback.sid);
    }
  }

  async #notAnswered(callSid: string): Promise<string> {
    return `the customer's phone was not answered (${(await this.services.store.calls.get(callSid))?.status ?? 'not placed'})`;
  }

  async #noAgent(job: Job): Promise<void> {
    if (job.offered || !this.#jobs.delete(job.callSid)) return;
    try {
      await this.acd.router.leave(job.callSid);
      await this.#failed(job.callback, "no agent took the callback within the queue's maximum wait");
    } catch (err) {
      this.services.log.error({ err, callbackSid: job.callback.sid }, 'callback: giving up the attempt failed');
    }
  }

  async #callerIdProblem(c: OpenCallback, tx: SqlQueries): Promise<string | null> {
    const check = await checkCallerId(this.services.store.numbers, c.accountId, c.from, tx);
    return check.ok ? null : callerIdFailure(check.problem);
  }

  async #failed(c: OpenCallback, error: string): Promise<void> {
    const retryAt = c.attempts < CALLBACK_MAX_ATTEMPTS ? this.services.clock.now() + CALLBACK_RETRY_MS : null;
    await this.services.store.scheduledCallbacks.attemptFailed(c.sid, error, retryAt);
  }
}
