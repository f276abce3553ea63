// The ACD's routing decisions, each one transaction on the platform's database (SQLite or PostgreSQL), so they hold
// across processes and restarts: a caller enters a queue; the first caller in line is offered to the available agent
// of the queue idle the longest (a reservation: the caller's row and the agent's row are locked, then each is taken
// by one conditional UPDATE, so no agent is ever offered two calls and no caller two agents); the offer is answered
// (the caller leaves the queue, the agent is busy), missed (the agent is free again; after max_no_answer misses in a
// row it goes on break) or withdrawn (the caller hung up); a call's end puts its agent in wrap-up, whose end makes it
// idle again. Every transaction that touches both rows takes the caller's before the agent's (docs/acd.md, Storage).
import { rowLock, type SqlDb, type SqlQueries } from '../store/sql.js';
import type { Clock } from '../clock.js';

export interface Offer { callSid: string; queueId: number; agentId: number; agentSid: string; trunkId: number }

/**
 * Whether an agent's seat can ring now (registered); the router never offers a call to a seat that cannot. Asked
 * outside the decision's transaction (it may read the registrations), never inside it.
 */
export type SeatCheck = (agent: { id: number; trunkId: number }) => boolean | Promise<boolean>;

/** Whether this process carries the caller (only the process holding a caller's leg can offer it). */
export type CallerCheck = (callSid: string) => boolean;

interface Candidate { id: number; sid: string; trunk_id: number; idle_since: number }
interface Member { id: number; call_sid: string; enqueued_at: number }

/** Candidates are read this many at a time, in order, until one fits (most decisions take the first). */
const PAGE = 32;

/** Calls that have ended, for reconcile. */
const ENDED = "c.status IN ('completed', 'busy', 'no-answer', 'failed', 'canceled')";
/** Callers still in a queue for a call that has ended. */
const ENDED_MEMBERS = `SELECT m.call_sid, m.queue_id FROM acd_members m JOIN calls c ON c.sid = m.call_sid WHERE ${ENDED}`;
/** Agents reserved, ringing or busy for a call that has ended. */
const ENDED_AGENTS = `SELECT a.id, a.activity, a.current_call_sid FROM acd_agents a
  JOIN calls c ON c.sid = a.current_call_sid WHERE a.activity IN ('reserved', 'ringing', 'busy') AND ${ENDED}`;

export class AcdRouter {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** The caller waits in the queue from now (a caller already in a queue is not added twice). */
  async enqueue(callSid: string, queueId: number): Promise<boolean> {
    return (await this.sql.run('INSERT INTO acd_members (call_sid, queue_id, enqueued_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
      [callSid, queueId, this.clock.now()])).changes === 1;
  }

  /**
   * Reserves the first caller in line not yet offered for the longest-idle agent of the queue who is available,
   * idle and whose seat can ring; null when either is missing. The agent is chosen first (its seat is asked outside
   * any transaction), then one transaction locks the caller's row and the agent's (on PostgreSQL; SQLite's one
   * writer holds the whole database), passing over rows another decision holds, and takes both. An agent taken
   * meanwhile is passed over for the next one. Concurrent decisions (other processes included) never wait on each
   * other, and each row is claimed once.
   */
  async reserveNext(queueId: number, seatUp: SeatCheck, callerHere: CallerCheck = () => true): Promise<Offer | null> {
    if (!(await this.sql.one('SELECT 1 AS one FROM acd_members WHERE queue_id = ? AND offered_to IS NULL LIMIT 1', [queueId]))) return null;
    const taken = new Set<number>();
    for (;;) {
      const agent = await this.#firstAgent(queueId, seatUp, taken);
      if (!agent) return null;
      const decided = await this.sql.transaction((tx) => this.#reserve(tx, queueId, agent, callerHere));
      if (decided !== 'agent-taken') return decided;
      taken.add(agent.id);
    }
  }

  /**
   * Takes the first caller in line not offered to an agent, one this process carries, out of the line for a
   * <Dial><Queue> (Twilio's dequeue): its row is locked and deleted in one transaction, so two dequeuers, or a
   * dequeuer and an agent's reservation, never take the same caller. Null when nobody is waiting.
   */
  async takeFirst(queueId: number, callerHere: CallerCheck): Promise<string | null> {
    return this.sql.transaction(async (tx) => {
      const caller = await this.#firstCaller(tx, queueId, callerHere);
      if (!caller) return null;
      await tx.run('DELETE FROM acd_members WHERE id = ? AND offered_to IS NULL', [caller.id]);
      return caller.call_sid;
    });
  }

  /** One decision for `agent`: the first caller in line and the agent, each locked, then both taken. */
  async #reserve(tx: SqlQueries, queueId: number, agent: Candidate, callerHere: CallerCheck): Promise<Offer | null | 'agent-taken'> {
    const caller = await this.#firstCaller(tx, queueId, callerHere);
    if (!caller) return null;
    if (!(await tx.one(`SELECT id FROM acd_agents WHERE id = ? AND status = 'available' AND activity = 'idle'${rowLock(tx, { skipLocked: true })}`, [agent.id]))) return 'agent-taken';
    // Both rows are held by this transaction since their SELECTs, still free: each UPDATE takes its row.
    const now = new Date(this.clock.now()).toISOString();
    const took = (await tx.run("UPDATE acd_agents SET activity = 'reserved', current_call_sid = ?, updated_at = ? WHERE id = ? AND activity = 'idle' AND status = 'available'",
      [caller.call_sid, now, agent.id])).changes;
    const offered = (await tx.run('UPDATE acd_members SET offered_to = ? WHERE call_sid = ? AND offered_to IS NULL', [agent.id, caller.call_sid])).changes;
    if (took !== 1 || offered !== 1) throw new Error('ACD reservation raced: both sides must be free inside the transaction');
    return { callSid: caller.call_sid, queueId, agentId: agent.id, agentSid: agent.sid, trunkId: agent.trunk_id };
  }

  /** The first caller in line, not offered, that this process carries, locked for the transaction. */
  async #firstCaller(tx: SqlQueries, queueId: number, callerHere: CallerCheck): Promise<Member | undefined> {
    let after = { at: -1, id: 0 };
    for (;;) {
      const page = await tx.all<Member>(`SELECT id, call_sid, enqueued_at FROM acd_members WHERE queue_id = ? AND offered_to IS NULL
        AND (enqueued_at > ? OR (enqueued_at = ? AND id > ?)) ORDER BY enqueued_at, id LIMIT ?`, [queueId, after.at, after.at, after.id, PAGE]);
      for (const c of page) {
        if (!callerHere(c.call_sid)) continue;
        if (await tx.one(`SELECT id FROM acd_members WHERE id = ? AND offered_to IS NULL${rowLock(tx, { skipLocked: true })}`, [c.id])) return c;
      }
      if (page.length < PAGE) return undefined;
      const last = page[page.length - 1]!;
      after = { at: last.enqueued_at, id: last.id };
    }
  }

  /** The free agent of the queue idle the longest whose seat can ring, except those `taken` meanwhile. */
  async #firstAgent(queueId: number, seatUp: SeatCheck, taken: Set<number>): Promise<Candidate | undefined> {
    let after = { at: -1, id: 0 };
    for (;;) {
      // Free agents in longest-idle order straight from their index.
      const page = await this.sql.all<Candidate>(`SELECT a.id, a.sid, a.trunk_id, a.idle_since FROM acd_agents a WHERE a.status = 'available' AND a.activity = 'idle'
        AND EXISTS (SELECT 1 FROM acd_agent_queues aq WHERE aq.agent_id = a.id AND aq.queue_id = ?)
        AND (a.idle_since > ? OR (a.idle_since = ? AND a.id > ?)) ORDER BY a.idle_since, a.id LIMIT ?`, [queueId, after.at, after.at, after.id, PAGE]);
      for (const c of page) {
        if (!taken.has(c.id) && (await seatUp({ id: c.id, trunkId: c.trunk_id }))) return c;
      }
      if (page.length < PAGE) return undefined;
      const last = page[page.length - 1]!;
      after = { at: last.idle_since, id: last.id };
    }
  }

  /** The agent's seat is ringing for its reservation. */
  ringing(offer: Offer): Promise<boolean> {
    return this.#agentStep(this.sql, offer, 'reserved', 'ringing');
  }

  /** The agent answered: the caller leaves the queue, the agent is busy with the call. */
  async answered(offer: Offer): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      // The caller's row first (the order every transaction here keeps): a caller who left meanwhile is no answer.
      if (!(await tx.one(`SELECT id FROM acd_members WHERE call_sid = ? AND offered_to = ?${rowLock(tx)}`, [offer.callSid, offer.agentId]))) return false;
      if (!(await this.#agentStep(tx, offer, 'ringing', 'busy'))) return false;
      await tx.run('UPDATE acd_agents SET missed_in_a_row = 0 WHERE id = ?', [offer.agentId]);
      await tx.run('DELETE FROM acd_members WHERE call_sid = ? AND offered_to = ?', [offer.callSid, offer.agentId]);
      return true;
    });
  }

  /**
   * The seat did not answer in time (or refused): the caller is first in line again; the agent is free again but
   * idle from now, so the next offer goes to another agent first; its missed offers in a row reach `maxNoAnswer`
   * and it goes on break, with the reason. True if it went on break.
   */
  async missed(offer: Offer, maxNoAnswer: number): Promise<boolean> {
    return this.sql.transaction(async (tx) => {
      await tx.run('UPDATE acd_members SET offered_to = NULL WHERE call_sid = ? AND offered_to = ?', [offer.callSid, offer.agentId]);
      const now = this.clock.now();
      const row = await tx.one<{ missed_in_a_row: number }>(`UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL, idle_since = ?,
        missed_in_a_row = missed_in_a_row + 1, updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity IN ('reserved', 'ringing') RETURNING missed_in_a_row`,
      [now, new Date(now).toISOString(), offer.agentId, offer.callSid]);
      if (!row || row.missed_in_a_row < maxNoAnswer) return false;
      await tx.run("UPDATE acd_agents SET status = 'break', break_reason = ? WHERE id = ? AND status = 'available'",
        [`missed ${row.missed_in_a_row} offered calls in a row`, offer.agentId]);
      return true;
    });
  }

  /**
   * The caller left the queue (hung up, or its wait ran out). An agent it was offered to is free again, without
   * counting a miss. Returns the queue and the offer it withdrew, or null if the caller was not waiting.
   */
  leave(callSid: string): Promise<{ queueId: number; withdrawnFrom: number | null } | null> {
    return this.sql.transaction((tx) => this.#leave(tx, callSid));
  }

  async #leave(tx: SqlQueries, callSid: string): Promise<{ queueId: number; withdrawnFrom: number | null } | null> {
    const member = await tx.one<{ queue_id: number; offered_to: number | null }>('DELETE FROM acd_members WHERE call_sid = ? RETURNING queue_id, offered_to', [callSid]);
    if (!member) return null;
    if (member.offered_to !== null) await this.#freeOffered(tx, member.offered_to, callSid);
    return { queueId: member.queue_id, withdrawnFrom: member.offered_to };
  }

  /**
   * The agent stopped taking calls (break, offline) while its seat rang for the offer: the caller is first in line
   * again and the agent free, without counting a miss.
   */
  async withdraw(offer: Offer): Promise<void> {
    await this.sql.transaction(async (tx) => {
      await tx.run('UPDATE acd_members SET offered_to = NULL WHERE call_sid = ? AND offered_to = ?', [offer.callSid, offer.agentId]);
      await this.#freeOffered(tx, offer.agentId, offer.callSid);
    });
  }

  /** An agent reserved or ringing for `callSid` is idle again (its idle time goes on from where it was). */
  async #freeOffered(tx: SqlQueries, agentId: number, callSid: string): Promise<void> {
    await tx.run("UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL, updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity IN ('reserved', 'ringing')",
      [new Date(this.clock.now()).toISOString(), agentId, callSid]);
  }

  /**
   * The agent's call ended: wrap-up (no offers) for `wrapUpSeconds` (kept in the row, so a restart keeps it), or
   * until `wrapUpDone`. With 0 seconds the agent is idle at once.
   */
  async callEnded(agentId: number, callSid: string, wrapUpSeconds = 0): Promise<boolean> {
    const now = this.clock.now();
    const ended = (await this.sql.run("UPDATE acd_agents SET activity = 'wrap-up', wrap_up_ends_at = ?, updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity = 'busy'",
      [now + wrapUpSeconds * 1000, new Date(now).toISOString(), agentId, callSid])).changes === 1;
    if (ended && wrapUpSeconds <= 0) await this.wrapUpDone(agentId);
    return ended;
  }

  /** Wrap-up is over (its time ran out, or a disposition was set): idle, and idle the longest is measured from now. */
  async wrapUpDone(agentId: number): Promise<boolean> {
    const now = this.clock.now();
    return (await this.sql.run(`UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL, wrap_up_ends_at = NULL, idle_since = ?, updated_at = ?
      WHERE id = ? AND activity = 'wrap-up'`, [now, new Date(now).toISOString(), agentId])).changes === 1;
  }

  /** Ends every wrap-up whose time has run out; returns those agents (their queues may have callers for them). */
  async endDueWrapUps(): Promise<number[]> {
    const due = await this.sql.all<{ id: number }>("SELECT id FROM acd_agents WHERE activity = 'wrap-up' AND wrap_up_ends_at <= ?", [this.clock.now()]);
    const ended: number[] = [];
    for (const a of due) if (await this.wrapUpDone(a.id)) ended.push(a.id);
    return ended;
  }

  /** The caller's place in line (1 = next to be offered), or null when it is not waiting. */
  async position(callSid: string): Promise<number | null> {
    const row = await this.sql.one<{ position: number }>(`SELECT (SELECT COUNT(*) FROM acd_members o WHERE o.queue_id = m.queue_id AND (o.enqueued_at < m.enqueued_at
      OR (o.enqueued_at = m.enqueued_at AND o.id < m.id))) + 1 AS position FROM acd_members m WHERE m.call_sid = ?`, [callSid]);
    return row?.position ?? null;
  }

  /** The queues an agent serves. */
  async queuesOf(agentId: number, q: SqlQueries = this.sql): Promise<number[]> {
    return (await q.all<{ queue_id: number }>('SELECT queue_id FROM acd_agent_queues WHERE agent_id = ?', [agentId])).map((r) => r.queue_id);
  }

  /**
   * Undoes what calls that have ended left behind (a control plane died with callers waiting or agents on calls):
   * their callers leave the queues; agents reserved or ringing for them are idle, agents busy with them go to
   * wrap-up ending now. Calls in `live` (this process carries them) are left alone. Returns the queues touched.
   * The sweep asks every ten seconds and there is nearly always nothing to do: plain reads find that out, and the
   * transaction (which reads again, under its writes) is opened only when there is.
   */
  async reconcile(live: (callSid: string) => boolean): Promise<number[]> {
    const leftBehind = async (q: SqlQueries) => ({
      members: (await q.all<{ call_sid: string; queue_id: number }>(ENDED_MEMBERS)).filter((m) => !live(m.call_sid)),
      agents: (await q.all<{ id: number; activity: string; current_call_sid: string }>(ENDED_AGENTS)).filter((a) => !live(a.current_call_sid)),
    });
    const seen = await leftBehind(this.sql);
    if (seen.members.length === 0 && seen.agents.length === 0) return [];
    return this.sql.transaction(async (tx) => {
      const { members, agents } = await leftBehind(tx);
      const queues = new Set<number>();
      for (const m of members) {
        await this.#leave(tx, m.call_sid);
        queues.add(m.queue_id);
      }
      const now = this.clock.now();
      for (const a of agents) {
        if (a.activity === 'busy') await tx.run("UPDATE acd_agents SET activity = 'wrap-up', wrap_up_ends_at = ? WHERE id = ?", [now, a.id]);
        else await tx.run("UPDATE acd_agents SET activity = 'idle', current_call_sid = NULL WHERE id = ?", [a.id]);
        for (const q of await this.queuesOf(a.id, tx)) queues.add(q);
      }
      return [...queues];
    });
  }

  #agentStep(q: SqlQueries, offer: Offer, from: string, to: string): Promise<boolean> {
    return q.run('UPDATE acd_agents SET activity = ?, updated_at = ? WHERE id = ? AND current_call_sid = ? AND activity = ?',
      [to, new Date(this.clock.now()).toISOString(), offer.agentId, offer.callSid, from]).then((r) => r.changes === 1);
  }
}
