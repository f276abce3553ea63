// The ACD's routing decisions, each one SQLite transaction on the platform's database, so they hold across
// processes and restarts: a caller enters a queue; the first caller in line is offered to the available agent of
// the queue idle the longest (a reservation: the agent and the caller are each taken by one conditional UPDATE,
// so no agent is ever offered two calls and no caller two agents); the offer is answered (the caller leaves the
// queue, the agent is busy), missed (the agent is free again; after max_no_answer misses in a row it goes on
// break) or withdrawn (the caller hung up); a call's end puts its agent in wrap-up, whose end makes it idle again.
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';

export interface Offer { callSid: string; queueId: number; agentId: number; agentSid: string; trunkId: number }

/** Whether an agent's seat can ring now (registered); the router never offers a call to a seat that cannot. */
export type SeatCheck = (agent: { id: number; trunkId: number }) => boolean;

/** Whether this process carries the caller (only the process holding a caller's leg can offer it). */
export type CallerCheck = (callSid: string) => boolean;

interface Candidate { id: number; sid: string; trunk_id: number }

export class AcdRouter {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  /** The caller waits in the queue from now (a caller already in a queue is not added twice). */
  enqueue(callSid: string, queueId: number): boolean {
    return this.db.prepare('INSERT OR IGNORE INTO acd_members (call_sid, queue_id, enqueued_at) VALUES (?, ?, ?)')
      .run(callSid, queueId, this.clock.now()).changes === 1;
  }

  /**
   * Reserves the first caller in line not yet offered for the longest-idle agent of the queue who is available,
   * idle and whose seat can ring; null when either is missing. Both sides are claimed conditionally inside one
   * transaction: whatever else runs (another process included), each is claimed once.
   */
  reserveNext(queueId: number, seatUp: SeatCheck, callerHere: CallerCheck = () => true): Offer | null {
    return this.db.transaction((): Offer | null => {
      let caller: { call_sid: string } | undefined;
      for (const c of this.db.prepare('SELECT call_sid FROM acd_members WHERE queue_id = ? AND offered_to IS NULL ORDER BY enqueued_at, rowid')
        .iterate(queueId) as IterableIterator<{ call_sid: string }>) {
        if (callerHere(c.call_sid)) { caller = c; break; }
      }
      if (!caller) return null;
      // Free agents in longest-idle order straight from their index; the walk stops at the first whose seat can ring.
      let agent: Candidate | undefined;
      for (const c of this.db.prepare(`SELECT a.id, a.sid, a.trunk_id FROM acd_agents a WHERE a.status = 'available' AND a.activity = 'idle'
        AND EXISTS (SELECT 1 FROM acd_agent_queues aq WHERE aq.agent_id = a.id AND aq.queue_id = ?) ORDER BY a.idle_since, a.id`).iterate(queueId) as IterableIterator<Candidate>) {
        if (seatUp({ id: c.id, trunkId: c.trunk_id })) { agent = c; break; }
      }
      if (!agent) return null;
      const now = new Date(this.clock.now()).toISOString();
      const took = this.db.prepare("UPDATE acd_agents SET activity = 'reserved', current_call_sid = ?, updated_at = ? WHERE id = ? AND activity = 'idle' AND status = 'available'")
        .run(caller.call_sid, now, agent.id).changes;
      const offered = this.db.prepare('UPDATE acd_members SET offered_to = ? WHERE call_sid = ? AND offered_to IS NULL').run(agent.id, caller.call_sid).changes;
      if (took !== 1 || offered !== 1) throw new Error('ACD reservation raced: both sides must be free inside the transaction');
      return { callSid: caller.call_sid, queueId, agentId: agent.id, agentSid: agent.sid, trunkId: agent.trunk_id };
    }).immediate();
  }

  /** The agent's seat is ringing for its reservation. */
  ringing(offer: Offer): boolean {
    return this.#agentStep(offer, 'reserved', 'ringing');
  }

  /** The agent answered: the caller leaves the queue, the agent is busy with the call. */
  answered(offer: Offer): boolean {
    return this.db.transaction(() => {
      if (!this.#agentStep(offer, 'ringing', 'busy')) return false;
      this.db.prepare('UPDATE acd_agents SET missed_in_a_row = 0 WHERE id = ?').run(offer.agentId);
      this.db.prepare('DELETE FROM acd_members WHERE call_sid = ? AND offered_to = ?').run(offer.callSid, offer.agentId);
      return true;
    }).immediate();
  }

  /**
   * The seat did not answer in time (or refused): the caller is first in line again; the agent is free again but
   * idle from now, so the next offer goes to another agent first; its missed offers in a row reach `maxNoAnswer`
   * and it goes on break, with the reason. True if it went on break.
   */
  missed(offer: Offer, maxNoAnswer: number): boolean {
    return this.db.transaction(() => {
      this.db.prepare('UPDATE acd_members SET offered_to = NULL WHERE call_sid = ? AND offered_to = ?').run(offer.callSid, offer.agentId);
      const now = this.clock.now();
      const row = this.db.prepare(`UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL, idle_since = ?, missed_in_a_row = missed_in_a_row + 1,
        updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity IN ('reserved', 'ringing') RETURNING missed_in_a_row`)
        .get(now, new Date(now).toISOString(), offer.agentId, offer.callSid) as { missed_in_a_row: number } | undefined;
      if (!row || row.missed_in_a_row < maxNoAnswer) return false;
      this.db.prepare("UPDATE acd_agents SET status = 'break', break_reason = ? WHERE id = ? AND status = 'available'")
        .run(`missed ${row.missed_in_a_row} offered calls in a row`, offer.agentId);
      return true;
    }).immediate();
  }

  /**
   * The caller left the queue (hung up, or its wait ran out). An agent it was offered to is free again, without
   * counting a miss. Returns the queue and the offer it withdrew, or null if the caller was not waiting.
   */
  leave(callSid: string): { queueId: number; withdrawnFrom: number | null } | null {
    return this.db.transaction(() => {
      const member = this.db.prepare('DELETE FROM acd_members WHERE call_sid = ? RETURNING queue_id, offered_to').get(callSid) as { queue_id: number; offered_to: number | null } | undefined;
      if (!member) return null;
      if (member.offered_to !== null) this.#freeOffered(member.offered_to, callSid);
      return { queueId: member.queue_id, withdrawnFrom: member.offered_to };
    }).immediate();
  }

  /**
   * The agent stopped taking calls (break, offline) while its seat rang for the offer: the caller is first in line
   * again and the agent free, without counting a miss.
   */
  withdraw(offer: Offer): void {
    this.db.transaction(() => {
      this.db.prepare('UPDATE acd_members SET offered_to = NULL WHERE call_sid = ? AND offered_to = ?').run(offer.callSid, offer.agentId);
      this.#freeOffered(offer.agentId, offer.callSid);
    }).immediate();
  }

  /** An agent reserved or ringing for `callSid` is idle again (its idle time goes on from where it was). */
  #freeOffered(agentId: number, callSid: string): void {
    this.db.prepare("UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL, updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity IN ('reserved', 'ringing')")
      .run(new Date(this.clock.now()).toISOString(), agentId, callSid);
  }

  /**
   * The agent's call ended: wrap-up (no offers) for `wrapUpSeconds` (kept in the row, so a restart keeps it), or
   * until `wrapUpDone`. With 0 seconds the agent is idle at once.
   */
  callEnded(agentId: number, callSid: string, wrapUpSeconds = 0): boolean {
    const now = this.clock.now();
    const ended = this.db.prepare("UPDATE acd_agents SET activity = 'wrap-up', wrap_up_ends_at = ?, updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity = 'busy'")
      .run(now + wrapUpSeconds * 1000, new Date(now).toISOString(), agentId, callSid).changes === 1;
    if (ended && wrapUpSeconds <= 0) this.wrapUpDone(agentId);
    return ended;
  }

  /** Wrap-up is over (its time ran out, or a disposition was set): idle, and idle the longest is measured from now. */
  wrapUpDone(agentId: number): boolean {
    const now = this.clock.now();
    return this.db.prepare(`UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL, wrap_up_ends_at = NULL, idle_since = ?, updated_at = ?
      WHERE id = ? AND activity = 'wrap-up'`).run(now, new Date(now).toISOString(), agentId).changes === 1;
  }

  /** Ends every wrap-up whose time has run out; returns those agents (their queues may have callers for them). */
  endDueWrapUps(): number[] {
    const due = this.db.prepare("SELECT id FROM acd_agents WHERE activity = 'wrap-up' AND wrap_up_ends_at <= ?").all(this.clock.now()) as Array<{ id: number }>;
    return due.filter((a) => this.wrapUpDone(a.id)).map((a) => a.id);
  }

  /** The caller's place in line (1 = next to be offered), or null when it is not waiting. */
  position(callSid: string): number | null {
    const row = this.db.prepare(`SELECT (SELECT COUNT(*) FROM acd_members o WHERE o.queue_id = m.queue_id AND (o.enqueued_at < m.enqueued_at
      OR (o.enqueued_at = m.enqueued_at AND o.rowid < m.rowid))) + 1 AS position FROM acd_members m WHERE m.call_sid = ?`).get(callSid) as { position: number } | undefined;
    return row?.position ?? null;
  }

  /** The queues an agent serves. */
  queuesOf(agentId: number): number[] {
    return (this.db.prepare('SELECT queue_id FROM acd_agent_queues WHERE agent_id = ?').all(agentId) as Array<{ queue_id: number }>).map((r) => r.queue_id);
  }

  /**
   * Undoes what calls that have ended left behind (a control plane died with callers waiting or agents on calls):
   * their callers leave the queues; agents reserved or ringing for them are idle, agents busy with them go to
   * wrap-up ending now. Calls in `live` (this process carries them) are left alone. Returns the queues touched.
   */
  reconcile(live: (callSid: string) => boolean): number[] {
    return this.db.transaction(() => {
      const ended = "c.status IN ('completed', 'busy', 'no-answer', 'failed', 'canceled')";
      const queues = new Set<number>();
      for (const m of this.db.prepare(`SELECT m.call_sid, m.queue_id FROM acd_members m JOIN calls c ON c.sid = m.call_sid WHERE ${ended}`)
        .all() as Array<{ call_sid: string; queue_id: number }>) {
        if (live(m.call_sid)) continue;
        this.leave(m.call_sid);
        queues.add(m.queue_id);
      }
      const now = this.clock.now();
      for (const a of this.db.prepare(`SELECT a.id, a.activity, a.current_call_sid FROM acd_agents a JOIN calls c ON c.sid = a.current_call_sid
        WHERE a.activity IN ('reserved', 'ringing', 'busy') AND ${ended}`).all() as Array<{ id: number; activity: string; current_call_sid: string }>) {
        if (live(a.current_call_sid)) continue;
        if (a.activity === 'busy') this.db.prepare("UPDATE acd_agents SET activity = 'wrap-up', wrap_up_ends_at = ? WHERE id = ?").run(now, a.id);
        else this.db.prepare("UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL WHERE id = ?").run(a.id);
        for (const q of this.queuesOf(a.id)) queues.add(q);
      }
      return [...queues];
    }).immediate();
  }

  #agentStep(offer: Offer, from: string, to: string): boolean {
    return this.db.prepare('UPDATE acd_agents SET activity = ?, updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity = ?')
      .run(to, new Date(this.clock.now()).toISOString(), offer.agentId, offer.callSid, from).changes === 1;
  }
}
