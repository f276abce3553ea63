// <Dial><Queue>: a call takes the first caller waiting in a queue and talks with it, as an agent whose seat rang
// would (Twilio's semantics). AcdService holds the waiting callers; this file only takes one from the line, or
// waits for one to arrive, and carries the talk.
import type { CallSession } from '../calls/session.js';
import { sleepUnless, whenAborted } from '../waits.js';
import type { AcdServices } from './services.js';
import type { AcdStats } from './stats.js';
import { acdRoom, waitedSeconds, type QueueResult, type Waiter } from './waiter.js';

/** <Dial><Queue>: the dialling call takes the first caller waiting in the queue and talks with it. */
export interface DequeueRequest {
  queue: string;
  /** How long to wait for a caller when nobody is waiting. */
  timeoutMs: number;
  /** Aborted when a redirect replaces the dialler's document: it stops waiting, or leaves the talk. */
  signal: AbortSignal;
  /** A document played to the dequeued caller alone before the two are connected (Twilio's <Queue url>). */
  url?: string;
}

export interface DequeueOutcome {
  /** `completed`: talked; `no-answer`: nobody came before the timeout; `failed`: no such queue; `canceled`: redirected. */
  status: 'completed' | 'no-answer' | 'failed' | 'canceled';
  queueSid: string | null;
  /** The dequeued caller's call, and how long it had waited in line. */
  callSid: string | null;
  waitSeconds: number;
}

/** The waiting callers as a dequeue needs them. */
export interface WaitingCallers {
  /** The first caller in line this process carries and can hand over, taken out of the line; null when none. */
  takeFirst(queueId: number): Promise<Waiter | null>;
  /** Ends the caller's wait with `result`: its <Enqueue> goes on. */
  settle(waiter: Waiter, result: QueueResult): Promise<void>;
}

export class Dequeuer {
  /** Diallers waiting for a caller, by queue id: told when one is in line. */
  readonly #waiting = new Map<number, Set<() => void>>();

  constructor(private readonly services: Pick<AcdServices, 'store' | 'clock' | 'holdAudio'>, private readonly stats: AcdStats, private readonly callers: WaitingCallers) {}

  /** A caller is in line in the queue (and held): diallers waiting for one look again. */
  callerInLine(queueId: number): void {
    for (const arrived of this.#waiting.get(queueId) ?? []) arrived();
  }

  /**
   * `dialler` takes the first caller waiting in the queue (waiting for one up to the timeout), hears it played the
   * url document first if any, then the two talk in the caller's room until either leaves; the caller's <Enqueue>
   * then goes on with queue_result bridged, the dialler's document after its Dial. Counted like an agent's offer
   * answered.
   */
  async dequeue(dialler: CallSession, req: DequeueRequest): Promise<DequeueOutcome> {
    const queue = await this.services.store.queues.find(dialler.accountId, req.queue);
    if (!queue) return { status: 'failed', queueSid: null, callSid: null, waitSeconds: 0 };
    const none = (status: DequeueOutcome['status']): DequeueOutcome => ({ status, queueSid: queue.sid, callSid: null, waitSeconds: 0 });
    const waiter = await this.#nextCaller(queue.id, req);
    if (!waiter) return none(req.signal.aborted ? 'canceled' : 'no-answer');
    const { session } = waiter;
    const waitSeconds = waitedSeconds(this.services.clock, waiter.enteredAt);
    this.stats.count(queue.sid, 'offered');
    this.stats.count(queue.sid, 'answered');
    if (waiter.maxWait) this.services.clock.clearTimeout(waiter.maxWait);
    const leg = await dialler.answer();
    const over = new AbortController();
    waiter.agent = { sid: null, leg, member: null, end: async () => { over.abort(); } };
    session.timeline('queue-bridged', { dequeued_by: dialler.sid, wait_seconds: waitSeconds });
    dialler.timeline('queue-dequeued', { call_sid: session.sid, queue: queue.friendlyName, wait_seconds: waitSeconds });
    try {
      await waiter.holding?.stop();
      waiter.holding = null;
      if (req.url) {
        const fields = { queue_sid: queue.sid, queue_time: waitSeconds, dequeuing_call_sid: dialler.sid };
        await this.services.holdAudio.announceUrl(session, [waiter.member], req.url, { params: () => fields });
      }
      waiter.agent.member = await leg.joinConference(acdRoom(session.sid), { muted: false });
      await waiter.member.unhold();
      await Promise.race([leg.ended, waiter.member.left, whenAborted(over.signal), whenAborted(req.signal)]);
    } catch (err) {
      session.log.warn({ err }, 'queue: the dequeuing call could not join the caller');
    }
    await waiter.agent.member?.leave().catch(() => undefined);
    await this.callers.settle(waiter, waiter.redirected ? 'redirected-from-bridged' : 'bridged');
    return { status: req.signal.aborted ? 'canceled' : 'completed', queueSid: queue.sid, callSid: session.sid, waitSeconds };
  }

  /** The first caller in line this process carries, taken out of the line; waits for one up to the timeout. */
  async #nextCaller(queueId: number, req: DequeueRequest): Promise<Waiter | null> {
    const deadline = this.services.clock.now() + req.timeoutMs;
    for (;;) {
      const waiter = await this.callers.takeFirst(queueId);
      if (waiter) return waiter;
      const left = deadline - this.services.clock.now();
      if (left <= 0 || req.signal.aborted) return null;
      // Until a caller is in line (callerInLine), the timeout, or a redirect: then the line is looked at again.
      const waiting = this.#waiting.get(queueId) ?? new Set<() => void>();
      this.#waiting.set(queueId, waiting);
      const arrived = new AbortController();
      const tell = () => arrived.abort();
      waiting.add(tell);
      await sleepUnless(this.services.clock, left, AbortSignal.any([arrived.signal, req.signal]));
      waiting.delete(tell);
      if (waiting.size === 0 && this.#waiting.get(queueId) === waiting) this.#waiting.delete(queueId);
    }
  }
}
