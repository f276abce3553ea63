// The ACD's calls: a caller waits in a room of its own on the media server (held, hearing the queue's music), the
// router picks the agent, the agent's seat rings, and the agent who answers joins the caller's room (a supervisor
// can join it too: monitor). Decisions are the router's (the store); this class carries the legs, the
// timers and the events. Only the process holding a caller's leg offers that caller.
import type { CallLeg, ConferenceMember, OriginateTarget } from '../engine/port.js';
import type { CallRecord } from '../store/calls.js';
import type { Agent, AgentStatus } from './agents.js';
import { placeCall } from '../calls/outbound.js';
import type { AcdServices } from './services.js';
import { CallSession } from '../calls/session.js';
import { newSid } from '../crypto/tokens.js';
import { emitDisposition, emitQueueEvent } from '../events/acd.js';
import type { Disposition } from './dispositions.js';
import { AcdRouter, type Offer } from './routing.js';
import { CallbackDialer } from './callback-dialer.js';
import { AcdStats } from './stats.js';
import { AcdSweeper } from './sweeper.js';
import { DEFAULT_QUEUE_SETTINGS, QueueNameTakenError, type Queue } from './queues.js';
import { onAbort } from '../waits.js';
import { AgentRinger } from './agent-ringing.js';
import { Dequeuer, type DequeueOutcome, type DequeueRequest } from './dequeue.js';
import { acdRoom, waitedSeconds, type QueueResult, type Waiter } from './waiter.js';

export interface WaitRequest {
  queue: string;
  /** Absolute URL of audio looped while waiting; the queue's wait_url when absent. */
  waitUrl?: string;
  maxWaitSeconds?: number;
  /** Aborted when a redirect replaces the caller's document: the caller leaves the line, or the agent's call ends. */
  signal?: AbortSignal;
  /** The call is in line already and keeps its place (a callback's customer who answered, src/acd/callback-dialer.ts). */
  inLine?: boolean;
}

export type MonitorMode = 'monitor' | 'whisper' | 'barge';

export interface MonitorRequest { target: OriginateTarget; to: string; from: string; numberId: number | null; mode: MonitorMode }

/** An agent talking with a customer in the room of the customer's call: what a supervisor joins. */
export interface Talking { customer: CallSession; agentLeg: CallLeg; agentMember: ConferenceMember }

/** The account's number on an agent's call: the one the customer called, or the one a callback calls from. */
export const accountNumberOn = (call: Pick<CallRecord, 'direction' | 'from' | 'to'>): string => (call.direction === 'inbound' ? call.to : call.from);

/** How long a supervisor's phone rings. */
export const SUPERVISOR_RING_MS = 30_000;

export interface WaitOutcome { result: QueueResult; queueSid: string; waitSeconds: number; agentSid: string | null }



export class AcdService {
  readonly router: AcdRouter;
  readonly stats = new AcdStats();
  readonly #waiters = new Map<string, Waiter>();
  readonly #callbacks: CallbackDialer;
  readonly #sweeper: AcdSweeper;
  readonly #dequeuer: Dequeuer;
  /** Rings agents' seats for offers (the queue's callers and the callbacks). */
  readonly seats: AgentRinger;

  constructor(private readonly services: AcdServices) {
    this.router = new AcdRouter(services.store.sql, services.clock);
    this.seats = new AgentRinger(services, this.router, this.stats);
    this.#callbacks = new CallbackDialer(services, this, acdRoom);
    this.#dequeuer = new Dequeuer(services, this.stats, {
      takeFirst: async (queueId) => {
        const sid = await this.router.takeFirst(queueId, (c) => this.#takeable(c));
        return (sid && this.#waiters.get(sid)) || null;
      },
      settle: (waiter, result) => this.#settle(waiter, result),
    });
    this.#sweeper = new AcdSweeper({
      router: this.router, callbacks: this.#callbacks, clock: services.clock, log: services.log,
      waitingQueues: () => [...this.#waiters.values()].filter((w) => !w.settled).map((w) => w.queue.id),
      live: (sid) => this.#waiters.has(sid), kick: (q) => this.kick(q), agentChanged: (a) => this.agentChanged(a),
    });
  }

  start(): void { this.#sweeper.start(); }

  stop(): void { this.#sweeper.stop(); }

  /**
   * A supervisor joins the room of the agent's call: `monitor` listens (muted), `whisper` is heard by the agent only,
   * `barge` talks to both. The supervisor's call is placed to `target`; it ends when the agent's call does. Returns
   * the supervisor's call, or null when the agent is not talking on a call this process carries.
   */
  async monitor(agent: Agent, req: MonitorRequest): Promise<{ call: CallRecord; done: Promise<void> } | null> {
    const talking = agent.activity === 'busy' && agent.currentCallSid ? this.#talking(agent.currentCallSid) : undefined;
    if (!talking) return null;
    const { customer, agentLeg, agentMember } = talking;
    const room = acdRoom(customer.sid);
    const placed = await placeCall(this.services, {
      accountId: agent.accountId, from: req.from, to: req.to, target: req.target, numberId: req.numberId, trunkId: null, callback: null, record: null,
      timeoutMs: SUPERVISOR_RING_MS, bridgeWith: agentLeg,
      onAnswered: async (supervisor) => {
        supervisor.timeline('supervisor-joined', { agent_sid: agent.sid, call_sid: customer.sid, mode: req.mode });
        // A whisperer joins muted and is heard once coaching is in place: joined unmuted and coached after, the
        // caller heard its first ~140 ms on a loaded machine.
        const member = await supervisor.leg!.joinConference(room, { muted: req.mode !== 'barge' });
        if (req.mode === 'whisper') {
          await member.coach(agentMember);
          await member.setMuted(false);
        }
        await Promise.race([member.left, agentLeg.ended]);
        await member.leave().catch(() => undefined);
        await supervisor.hangup('monitored-call-ended');
      },
    });
    customer.timeline('supervisor-called', { agent_sid: agent.sid, call_sid: placed.call.sid, mode: req.mode });
    return placed;
  }

  /** The agent and customer talking on this call, whether the customer called in (a waiter) or was called back. */
  #talking(callSid: string): Talking | undefined {
    const w = this.#waiters.get(callSid);
    if (w?.agent?.member) return { customer: w.session, agentLeg: w.agent.leg, agentMember: w.agent.member };
    return this.#callbacks.talking(callSid);
  }

  /**
   * An agent's status or queues changed (API, dashboard; `status` is the new one) or its wrap-up ended: its queues
   * may have callers for it. An agent that stops taking calls while its seat rings has the offer withdrawn at once
   * (the seat gets its CANCEL; the ringer gives the caller to the next agent, counting no miss).
   */
  async agentChanged(agentId: number, status?: AgentStatus): Promise<void> {
    if (status !== undefined && status !== 'available') this.seats.withdraw(agentId);
    for (const q of await this.router.queuesOf(agentId)) await this.kick(q);
  }

  /** Ends an agent's wrap-up now (a disposition was set); false when it was not in wrap-up. */
  async endWrapUp(agentId: number): Promise<boolean> {
    const ended = await this.router.wrapUpDone(agentId);
    if (ended) await this.agentChanged(agentId);
    return ended;
  }

  /**
   * Sets a call's disposition: stored with its event in one transaction (the transactional outbox), by the agent
   * talking on the call or wrapping it up, whose wrap-up it ends.
   */
  async dispose(accountId: number, call: CallRecord, disposition: string, notes: string | null): Promise<Disposition> {
    const { store, events } = this.services;
    const agent = await store.agents.onCall(accountId, call.sid);
    const saved = await store.sql.transaction(async (tx) => {
      const row = await store.dispositions.create(accountId, { sid: newSid('DP'), callSid: call.sid, agentSid: agent?.sid ?? null, disposition, notes }, tx);
      await emitDisposition(events, { accountId, callSid: call.sid, from: call.from, to: call.to, disposition: row.disposition, setBy: row.agentSid, notes: row.notes }, tx);
      return row;
    });
    if (agent?.activity === 'wrap-up') await this.endWrapUp(agent.id);
    return saved;
  }

  /** <Enqueue> and the IVR's queue key: the caller waits until an agent takes the call, hangs up, or the wait runs out. */
  async wait(session: CallSession, req: WaitRequest): Promise<WaitOutcome> {
    const { clock } = this.services;
    const queue = await this.#queueNamed(session.accountId, req.queue);
    const enteredAt = clock.now();
    const outcome = (result: QueueResult, agentSid: string | null = null): WaitOutcome =>
      ({ result, queueSid: queue.sid, waitSeconds: waitedSeconds(this.services.clock, enteredAt), agentSid });
    const leg = await session.answer();
    let member: ConferenceMember;
    try {
      member = await leg.joinConference(acdRoom(session.sid), { muted: false });
    } catch (err) {
      session.log.warn({ err }, 'queue: the media server could not hold the caller');
      session.timeline('queue-error', { queue: queue.friendlyName, reason: 'the media server could not hold the caller' });
      return outcome(leg.isEnded ? 'hangup' : 'error');
    }
    let finish!: (r: QueueResult) => void;
    const finished = new Promise<QueueResult>((resolve) => { finish = resolve; });
    const waiter: Waiter = { session, queue, enteredAt, member, holding: null, settled: false, finish, ringing: null, agent: null, maxWait: null, redirected: false };
    if (leg.isEnded || !(req.inLine === true || (await this.router.enqueue(session.sid, queue.id)))) {
      await this.#release(waiter);
      return outcome('hangup');
    }
    this.#waiters.set(session.sid, waiter);
    session.timeline('queued', { queue: queue.friendlyName, queue_sid: queue.sid });
    await this.#event(waiter, 'queued');
    if ((await this.services.store.queues.figures(queue)).agentsAvailable === 0) await this.#event(waiter, 'no-agent', 'none-available');
    waiter.maxWait = clock.setTimeout(() => void this.#timedOut(waiter), (req.maxWaitSeconds ?? queue.maxWaitSeconds) * 1000);
    void leg.ended.then(() => this.#callerGone(waiter));
    const redirected = () => void this.#redirected(waiter);
    const stopWatching = onAbort(req.signal, redirected);
    // The wait audio starts once the caller is in line, as a wait document's <Leave> takes it out of the line; before
    // the first offer, so no agent joins a caller who is not held yet. A document is asked for again each time it
    // ends, with the caller's wait so far (Twilio's QueueTime).
    waiter.holding = await this.services.holdAudio.hold(session, member, req.waitUrl ?? queue.waitUrl, {
      params: () => ({ queue_sid: queue.sid, queue_time: waitedSeconds(this.services.clock, enteredAt) }),
      onLeave: () => void this.#leaveLine(waiter, 'leave'),
    });
    // Gone while the wait audio was fetched: released already, so this playback is stopped here.
    if (waiter.settled) await waiter.holding.stop();
    this.#dequeuer.callerInLine(queue.id);
    void this.kick(queue.id);

    const result = await finished;
    stopWatching();
    this.#waiters.delete(session.sid);
    return outcome(result, waiter.agent?.sid ?? null);
  }

  /** <Dial><Queue> (see Dequeuer.dequeue). */
  dequeue(dialler: CallSession, req: DequeueRequest): Promise<DequeueOutcome> {
    return this.#dequeuer.dequeue(dialler, req);
  }

  /**
   * A waiting caller this process carries that an agent or a dequeuer may take: not one whose wait audio is still
   * being fetched (its hold would start over the talk; wait() kicks the queue once it is held).
   */
  #takeable(callSid: string): boolean {
    const w = this.#waiters.get(callSid);
    return w !== undefined && !w.settled && !w.agent && w.holding !== null;
  }

  /**
   * Offers the queue's callers (those this process carries) to its free agents, as long as both remain. Never
   * rejects: a failed decision is logged, and the next sweep tries the queue again.
   */
  async kick(queueId: number): Promise<void> {
    try {
      for (;;) {
        const offer = await this.router.reserveNext(queueId, (a) => this.#seatUp(a.trunkId), (sid) => this.#takeable(sid) || this.#callbacks.waiting(sid));
        if (!offer) return;
        const offering = this.#waiters.has(offer.callSid) ? this.#offer(offer) : this.#callbacks.offer(offer);
        void offering.catch((err: unknown) => this.services.log.error({ err, callSid: offer.callSid }, 'queue: offer failed'));
      }
    } catch (err) {
      this.services.log.error({ err, queueId }, 'queue: routing decision failed');
    }
  }

  async #seatUp(trunkId: number): Promise<boolean> {
    const trunk = await this.services.store.trunks.getById(trunkId);
    return trunk !== undefined && trunk.status === 'active' && (await this.services.engine.seatRegistered(trunk.endpoint_name));
  }

  /** The agent's call is over: wrap-up (none when a disposition was set during the call), then the next offer. */
  async agentCallEnded(offer: Offer, callSid: string, accountId: number, wrapUpSeconds: number): Promise<void> {
    // A disposition set during the call already did what wrap-up is for.
    const wrapUp = (await this.services.store.dispositions.forCall(accountId, callSid)).length > 0 ? 0 : wrapUpSeconds;
    await this.router.callEnded(offer.agentId, callSid, wrapUp);
    if (wrapUp <= 0) await this.agentChanged(offer.agentId);
  }

  async #offer(offer: Offer): Promise<void> {
    const waiter = this.#waiters.get(offer.callSid)!;
    const { session, queue } = waiter;
    const ringing = new AbortController();
    waiter.ringing = ringing;
    const ring = await this.seats.ring(offer, {
      from: session.call.from, parentSid: session.sid, queue, signal: ringing.signal, wanted: () => !waiter.settled,
      ...(session.leg ? { bridgeWith: session.leg } : {}),
    });
    if (waiter.ringing === ringing) waiter.ringing = null;
    session.timeline('queue-offer', { agent_sid: offer.agentSid, call_sid: ring.childSid, result: ring.kind });
    if (ring.kind === 'missed') session.timeline('queue-offer-missed', { agent_sid: offer.agentSid, cause: ring.cause, agent_on_break: ring.onBreak });
    if (ring.kind !== 'answered') {
      // The caller may be first in line again (a miss, an agent gone on break): the next agent is tried now.
      await this.kick(queue.id);
      return;
    }
    const agentLeg = ring.leg;
    waiter.agent = { sid: offer.agentSid, leg: agentLeg, member: null, end: () => agentLeg.hangup() };
    if (waiter.maxWait) this.services.clock.clearTimeout(waiter.maxWait);
    session.timeline('queue-bridged', { agent_sid: offer.agentSid, call_sid: ring.childSid, wait_seconds: waitedSeconds(this.services.clock, waiter.enteredAt) });
    try {
      waiter.agent.member = await agentLeg.joinConference(acdRoom(session.sid), { muted: false });
      await waiter.holding?.stop();
      waiter.holding = null;
      await waiter.member.unhold();
      await Promise.race([agentLeg.ended, waiter.member.left]);
    } catch (err) {
      session.log.warn({ err }, 'queue: the agent could not join the caller');
    }
    if (!agentLeg.isEnded) await agentLeg.hangup();
    await ring.session.finish(await agentLeg.ended);
    await this.agentCallEnded(offer, offer.callSid, session.accountId, queue.wrapUpSeconds);
    await this.#settle(waiter, waiter.redirected ? 'redirected-from-bridged' : 'bridged');
  }

  /** A redirect replaced the caller's document: out of the line (no abandoned call), or out of the agent's talk. */
  async #redirected(waiter: Waiter): Promise<void> {
    waiter.redirected = true;
    if (waiter.agent) await waiter.agent.end();
    else await this.#leaveLine(waiter, 'redirected');
  }

  /** The caller's leg ended: while waiting that is an abandoned call; once bridged, the agent's leg ends too. */
  async #callerGone(waiter: Waiter): Promise<void> {
    if (waiter.agent) {
      await waiter.agent.end();
      return;
    }
    await this.#leaveLine(waiter, 'hangup');
  }

  async #timedOut(waiter: Waiter): Promise<void> {
    if (!waiter.agent) await this.#leaveLine(waiter, 'timeout');
  }

  /** A waiting caller leaves the line (hung up: abandoned; waited too long: no-agent), withdrawing a ringing offer. */
  async #leaveLine(waiter: Waiter, result: 'hangup' | 'timeout' | 'redirected' | 'leave'): Promise<void> {
    if (waiter.settled) return;
    const position = (await this.router.position(waiter.session.sid)) ?? 1;
    waiter.ringing?.abort();
    if (!(await this.router.leave(waiter.session.sid))) return;
    const queue = waiter.queue.friendlyName;
    if (result === 'redirected' || result === 'leave') {
      waiter.session.timeline(result === 'leave' ? 'queue-left' : 'queue-redirected', { queue });
    } else if (result === 'hangup') {
      waiter.session.timeline('abandoned', { queue });
      this.stats.count(waiter.queue.sid, 'abandoned');
      await this.#event(waiter, 'abandoned', undefined, position);
    } else {
      waiter.session.timeline('queue-timeout', { queue });
      await this.#event(waiter, 'no-agent', 'max-wait', position);
    }
    await this.#settle(waiter, result);
  }

  async #settle(waiter: Waiter, result: QueueResult): Promise<void> {
    if (waiter.settled) return;
    waiter.settled = true;
    if (waiter.maxWait) this.services.clock.clearTimeout(waiter.maxWait);
    await this.#release(waiter);
    waiter.finish(result);
  }

  /** The wait audio stops and the caller leaves its room (the leg stays up for what follows the Enqueue). */
  async #release(waiter: Pick<Waiter, 'member' | 'holding'>): Promise<void> {
    await waiter.holding?.stop();
    waiter.holding = null;
    await waiter.member.leave().catch(() => undefined);
  }

  async #event(waiter: Waiter, type: 'queued' | 'abandoned' | 'no-agent', reason?: 'none-available' | 'max-wait', position?: number): Promise<void> {
    const { session, queue } = waiter;
    const moment = {
      accountId: session.accountId, callSid: session.sid, from: session.call.from, to: session.call.to, queue: queue.friendlyName, queueSid: queue.sid,
      waitSeconds: waitedSeconds(this.services.clock, waiter.enteredAt), position: position ?? (await this.router.position(session.sid)) ?? 1,
    };
    if (type === 'no-agent') await emitQueueEvent(this.services.events, type, { ...moment, reason: reason! });
    else await emitQueueEvent(this.services.events, type, moment);
  }

  /** Markup names queues freely (as on Twilio): a name not yet used is a new queue with the default settings. */
  async #queueNamed(accountId: number, name: string): Promise<Queue> {
    const { queues } = this.services.store;
    const found = await queues.find(accountId, name);
    if (found) return found;
    try {
      return await queues.create(accountId, newSid('QU'), { ...DEFAULT_QUEUE_SETTINGS, friendlyName: name });
    } catch (err) {
      if (err instanceof QueueNameTakenError) return (await queues.find(accountId, name))!;
      throw err;
    }
  }
}
