// Ringing an agent's seat for an ACD offer, shared by the queue (a caller waiting) and the callback dialer (a
// customer to call back): the agent's call is a child call of the one it is for, and the router hears how the
// ring went (answered, missed, withdrawn).
import type { CallLeg } from '../engine/port.js';
import type { AcdServices } from './services.js';
import { CallSession } from '../calls/session.js';
import { newSid } from '../crypto/tokens.js';
import type { AcdRouter, Offer } from './routing.js';
import type { AcdStats } from './stats.js';
import type { Queue } from './queues.js';

export type RingResult =
  | { kind: 'answered'; childSid: string; session: CallSession; leg: CallLeg }
  | { kind: 'missed'; childSid: string; cause: string; onBreak: boolean }
  | { kind: 'withdrawn'; childSid: string };

export interface RingRequest {
  /** The caller ID the seat sees. */
  from: string;
  /** The call the agent's call is a child of. */
  parentSid: string;
  queue: Queue;
  /** Aborted when the offer is no longer wanted (the caller left): the seat's ringing is withdrawn. */
  signal: AbortSignal;
  /** The leg the agent will be bridged with: its media server is used. */
  bridgeWith?: CallLeg;
  /** Whether the offer still stands (asked once the seat has answered or not). */
  wanted: () => boolean;
}

export class AgentRinger {
  readonly #services: AcdServices;
  readonly #router: AcdRouter;
  readonly #stats: AcdStats;
  /** Per agent, the offer its seat is ringing for: aborting it withdraws the offer. */
  readonly #ringing = new Map<number, AbortController>();

  constructor(services: AcdServices, router: AcdRouter, stats: AcdStats) {
    this.#services = services;
    this.#router = router;
    this.#stats = stats;
  }

  /** The agent stopped taking calls: the offer its seat rings for (if any) is withdrawn, counting no miss. */
  withdraw(agentId: number): void { this.#ringing.get(agentId)?.abort(); }

  /**
   * Rings the agent's seat for an offer. Answered: the agent's call (a child of `parentSid`), busy. Not answered
   * while still wanted: a miss (the next agent is tried). Withdrawn (the caller left): nothing.
   */
  async ring(offer: Offer, o: RingRequest): Promise<RingResult> {
    const { store, engine } = this.#services;
    const trunk = (await store.trunks.getById(offer.trunkId))!;
    const childSid = newSid('CA');
    await store.calls.create({ sid: childSid, accountId: trunk.accountId, direction: 'outbound-dial', from: o.from, to: `agent:${offer.agentSid}`, status: 'queued', parentSid: o.parentSid });
    await this.#router.ringing(offer);
    this.#stats.count(o.queue.sid, 'offered');
    // Withdrawn when the caller no longer waits (o.signal) or the agent stops taking calls (agentChanged aborts agentLeft).
    const agentLeft = new AbortController();
    this.#ringing.set(offer.agentId, agentLeft);
    const result = await engine.originate({
      // Rung at its registered contact as it is (a browser seat refuses a request URI naming another user).
      target: { kind: 'client', identity: trunk.endpoint_name }, callerId: o.from, timeoutMs: o.queue.ringTimeoutSeconds * 1000,
      signal: AbortSignal.any([o.signal, agentLeft.signal]),
      ...(o.bridgeWith ? { bridgeWith: o.bridgeWith } : {}), onRinging: () => { store.calls.setStatus(childSid, 'ringing').catch((err: unknown) => this.#services.log.warn({ err }, 'ringing status not stored')); },
    }).finally(() => this.#ringing.delete(offer.agentId));
    if (!result.answered) {
      await store.calls.finish(childSid, result.cause === 'rejected' ? 'busy' : result.cause, result.cause);
      if (!o.wanted()) return { kind: 'withdrawn', childSid };
      if (agentLeft.signal.aborted) {
        // The agent went on break or offline: the caller is first in line again, and no miss counts against the agent.
        await this.#router.withdraw(offer);
        return { kind: 'withdrawn', childSid };
      }
      const onBreak = await this.#router.missed(offer, o.queue.maxNoAnswer);
      return { kind: 'missed', childSid, cause: result.cause, onBreak };
    }
    if (!o.wanted() || !(await this.#router.answered(offer))) {
      await result.leg.hangup();
      await store.calls.finish(childSid, 'canceled', 'canceled');
      return { kind: 'withdrawn', childSid };
    }
    const session = new CallSession(this.#services, (await store.calls.get(childSid))!, undefined, result.leg);
    await store.calls.markAnswered(childSid);
    this.#stats.count(o.queue.sid, 'answered');
    return { kind: 'answered', childSid, session, leg: result.leg };
  }
}
