// ACD queues in the store (SQLite or PostgreSQL), with the live figures a queue's view carries (callers waiting, longest wait, agents free).
import type { SqlDb } from '../store/sql.js';
import type { Clock } from '../clock.js';
import type { MachineDetectionSettings } from '../media/answering-machine.js';

/** What a callback's customer answered by a machine gets: tried again later, or the queue's message once the greeting ends. */
export type MachineAction = 'retry' | 'message';
export const MACHINE_ACTIONS: readonly MachineAction[] = ['retry', 'message'];

export interface QueueSettings {
  friendlyName: string;
  maxWaitSeconds: number;
  ringTimeoutSeconds: number;
  wrapUpSeconds: number;
  maxNoAnswer: number;
  waitUrl: string | null;
  /** Answering-machine detection on the customers its callbacks dial (docs/acd.md), or null (off). */
  machineDetection: MachineDetectionSettings['mode'] | null;
  machineAction: MachineAction;
  /** Said to a machine after its greeting (machineAction 'message'). */
  machineMessage: string | null;
}

/** A new queue's settings when the request (or markup naming a new queue) does not give them. */
export const DEFAULT_QUEUE_SETTINGS: QueueSettings = {
  friendlyName: '', maxWaitSeconds: 600, ringTimeoutSeconds: 20, wrapUpSeconds: 30, maxNoAnswer: 3, waitUrl: null,
  machineDetection: null, machineAction: 'retry', machineMessage: null,
};

export interface Queue extends QueueSettings {
  id: number;
  sid: string;
  accountId: number;
  createdAt: string;
  updatedAt: string;
}

/** What is happening in a queue now. */
export interface QueueFigures { size: number; longestWaitSeconds: number; agentsAvailable: number }

export interface WaitingCaller { callSid: string; position: number; waitSeconds: number }

interface Row {
  id: number; sid: string; account_id: number; friendly_name: string; max_wait_seconds: number; ring_timeout_seconds: number;
  wrap_up_seconds: number; max_no_answer: number; wait_url: string | null; machine_detection: QueueSettings['machineDetection'];
  machine_action: MachineAction; machine_message: string | null; created_at: string; updated_at: string;
}

const toQueue = (r: Row): Queue => ({
  id: r.id, sid: r.sid, accountId: r.account_id, friendlyName: r.friendly_name, maxWaitSeconds: r.max_wait_seconds,
  ringTimeoutSeconds: r.ring_timeout_seconds, wrapUpSeconds: r.wrap_up_seconds, maxNoAnswer: r.max_no_answer, waitUrl: r.wait_url,
  machineDetection: r.machine_detection, machineAction: r.machine_action, machineMessage: r.machine_message, createdAt: r.created_at, updatedAt: r.updated_at,
});

export class QueueNameTakenError extends Error {
  constructor(readonly friendlyName: string) { super(`a queue named ${friendlyName} already exists`); }
}

/** A second queue of the same name in the account: SQLite's and PostgreSQL's words for the unique index refusing it. */
const isUniqueViolation = (err: unknown) => ['SQLITE_CONSTRAINT_UNIQUE', '23505'].includes((err as { code?: string }).code ?? '');

export class QueueRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  async create(accountId: number, sid: string, s: QueueSettings): Promise<Queue> {
    const now = new Date(this.clock.now()).toISOString();
    try {
      const row = await this.sql.one<Row>(`INSERT INTO acd_queues (sid, account_id, friendly_name, max_wait_seconds, ring_timeout_seconds, wrap_up_seconds,
        max_no_answer, wait_url, machine_detection, machine_action, machine_message, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
      [sid, accountId, s.friendlyName, s.maxWaitSeconds, s.ringTimeoutSeconds, s.wrapUpSeconds, s.maxNoAnswer, s.waitUrl, s.machineDetection, s.machineAction,
        s.machineMessage, now, now]);
      return toQueue(row!);
    } catch (err) {
      if (isUniqueViolation(err)) throw new QueueNameTakenError(s.friendlyName);
      throw err;
    }
  }

  async getForAccount(accountId: number, sid: string): Promise<Queue | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM acd_queues WHERE sid = ? AND account_id = ?', [sid, accountId]);
    return row && toQueue(row);
  }

  /** A queue by sid or by name: markup and agents name queues either way. */
  async find(accountId: number, sidOrName: string): Promise<Queue | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM acd_queues WHERE account_id = ? AND (sid = ? OR friendly_name = ?)', [accountId, sidOrName, sidOrName]);
    return row && toQueue(row);
  }

  async listForAccount(accountId: number, page: { beforeId: number | null; limit: number }): Promise<Queue[]> {
    return (await this.sql.all<Row>('SELECT * FROM acd_queues WHERE account_id = ? AND (CAST(? AS BIGINT) IS NULL OR id < ?) ORDER BY id DESC LIMIT ?',
      [accountId, page.beforeId, page.beforeId, page.limit])).map(toQueue);
  }

  async update(queue: Queue, s: QueueSettings): Promise<Queue> {
    try {
      const row = await this.sql.one<Row>(`UPDATE acd_queues SET friendly_name = ?, max_wait_seconds = ?, ring_timeout_seconds = ?, wrap_up_seconds = ?,
        max_no_answer = ?, wait_url = ?, machine_detection = ?, machine_action = ?, machine_message = ?, updated_at = ? WHERE id = ? RETURNING *`,
      [s.friendlyName, s.maxWaitSeconds, s.ringTimeoutSeconds, s.wrapUpSeconds, s.maxNoAnswer, s.waitUrl, s.machineDetection, s.machineAction, s.machineMessage,
        new Date(this.clock.now()).toISOString(), queue.id]);
      return row ? toQueue(row) : queue;
    } catch (err) {
      if (isUniqueViolation(err)) throw new QueueNameTakenError(s.friendlyName);
      throw err;
    }
  }

  /**
   * Deletes the queue unless callers wait in it or callbacks are still to be made for it (checked in the same
   * statement); false when either is so. Finished callbacks keep their history, without the queue.
   */
  async deleteIfEmpty(queue: Queue): Promise<boolean> {
    return (await this.sql.run(`DELETE FROM acd_queues WHERE id = ? AND NOT EXISTS (SELECT 1 FROM acd_members WHERE queue_id = ?)
      AND NOT EXISTS (SELECT 1 FROM acd_callbacks WHERE queue_id = ? AND status IN ('scheduled', 'dialing'))`, [queue.id, queue.id, queue.id])).changes === 1;
  }

  async figures(queue: Queue): Promise<QueueFigures> {
    const waiting = (await this.sql.one<{ n: number; first_at: number | null }>('SELECT COUNT(*) AS n, MIN(enqueued_at) AS first_at FROM acd_members WHERE queue_id = ?', [queue.id]))!;
    const free = (await this.sql.one<{ n: number }>(`SELECT COUNT(*) AS n FROM acd_agents a JOIN acd_agent_queues q ON q.agent_id = a.id
      WHERE q.queue_id = ? AND a.status = 'available' AND a.activity = 'idle'`, [queue.id]))!;
    return {
      size: waiting.n,
      longestWaitSeconds: waiting.first_at === null ? 0 : Math.max(0, Math.floor((this.clock.now() - waiting.first_at) / 1000)),
      agentsAvailable: free.n,
    };
  }

  /** The callers waiting, first in line first. */
  async waiting(queue: Queue): Promise<WaitingCaller[]> {
    const now = this.clock.now();
    return (await this.sql.all<{ call_sid: string; enqueued_at: number }>('SELECT call_sid, enqueued_at FROM acd_members WHERE queue_id = ? ORDER BY enqueued_at, id', [queue.id]))
      .map((m, i) => ({ callSid: m.call_sid, position: i + 1, waitSeconds: Math.max(0, Math.floor((now - m.enqueued_at) / 1000)) }));
  }
}
