// ACD queues in SQLite, with the live figures a queue's view carries (callers waiting, longest wait, agents free).
import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';

export interface QueueSettings {
  friendlyName: string;
  maxWaitSeconds: number;
  ringTimeoutSeconds: number;
  wrapUpSeconds: number;
  maxNoAnswer: number;
  waitUrl: string | null;
}

/** A new queue's settings when the request (or markup naming a new queue) does not give them. */
export const DEFAULT_QUEUE_SETTINGS: QueueSettings = {
  friendlyName: '', maxWaitSeconds: 600, ringTimeoutSeconds: 20, wrapUpSeconds: 30, maxNoAnswer: 3, waitUrl: null,
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
  wrap_up_seconds: number; max_no_answer: number; wait_url: string | null; created_at: string; updated_at: string;
}

const toQueue = (r: Row): Queue => ({
  id: r.id, sid: r.sid, accountId: r.account_id, friendlyName: r.friendly_name, maxWaitSeconds: r.max_wait_seconds,
  ringTimeoutSeconds: r.ring_timeout_seconds, wrapUpSeconds: r.wrap_up_seconds, maxNoAnswer: r.max_no_answer, waitUrl: r.wait_url,
  createdAt: r.created_at, updatedAt: r.updated_at,
});

export class QueueNameTakenError extends Error {
  constructor(readonly friendlyName: string) { super(`a queue named ${friendlyName} already exists`); }
}

const isUniqueViolation = (err: unknown) => (err as { code?: string }).code === 'SQLITE_CONSTRAINT_UNIQUE';

export class QueueRepo {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  create(accountId: number, sid: string, s: QueueSettings): Queue {
    const now = new Date(this.clock.now()).toISOString();
    try {
      this.db.prepare(`INSERT INTO acd_queues (sid, account_id, friendly_name, max_wait_seconds, ring_timeout_seconds, wrap_up_seconds,
        max_no_answer, wait_url, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`)
        .run(sid, accountId, s.friendlyName, s.maxWaitSeconds, s.ringTimeoutSeconds, s.wrapUpSeconds, s.maxNoAnswer, s.waitUrl, now, now);
    } catch (err) {
      if (isUniqueViolation(err)) throw new QueueNameTakenError(s.friendlyName);
      throw err;
    }
    return this.getForAccount(accountId, sid)!;
  }

  getForAccount(accountId: number, sid: string): Queue | undefined {
    const row = this.db.prepare('SELECT * FROM acd_queues WHERE sid = ? AND account_id = ?').get(sid, accountId) as Row | undefined;
    return row && toQueue(row);
  }

  /** A queue by sid or by name: markup and agents name queues either way. */
  find(accountId: number, sidOrName: string): Queue | undefined {
    const row = this.db.prepare('SELECT * FROM acd_queues WHERE account_id = ? AND (sid = ? OR friendly_name = ?)').get(accountId, sidOrName, sidOrName) as Row | undefined;
    return row && toQueue(row);
  }

  listForAccount(accountId: number, page: { beforeId: number | null; limit: number }): Queue[] {
    return (this.db.prepare('SELECT * FROM acd_queues WHERE account_id = ? AND (? IS NULL OR id < ?) ORDER BY id DESC LIMIT ?')
      .all(accountId, page.beforeId, page.beforeId, page.limit) as Row[]).map(toQueue);
  }

  update(queue: Queue, s: QueueSettings): Queue {
    try {
      this.db.prepare(`UPDATE acd_queues SET friendly_name = ?, max_wait_seconds = ?, ring_timeout_seconds = ?, wrap_up_seconds = ?,
        max_no_answer = ?, wait_url = ?, updated_at = ? WHERE id = ?`)
        .run(s.friendlyName, s.maxWaitSeconds, s.ringTimeoutSeconds, s.wrapUpSeconds, s.maxNoAnswer, s.waitUrl, new Date(this.clock.now()).toISOString(), queue.id);
    } catch (err) {
      if (isUniqueViolation(err)) throw new QueueNameTakenError(s.friendlyName);
      throw err;
    }
    return this.getForAccount(queue.accountId, queue.sid)!;
  }

  /**
   * Deletes the queue unless callers wait in it or callbacks are still to be made for it (checked in the same
   * statement); false when either is so. Finished callbacks keep their history, without the queue.
   */
  deleteIfEmpty(queue: Queue): boolean {
    return this.db.prepare(`DELETE FROM acd_queues WHERE id = ? AND NOT EXISTS (SELECT 1 FROM acd_members WHERE queue_id = ?)
      AND NOT EXISTS (SELECT 1 FROM acd_callbacks WHERE queue_id = ? AND status IN ('scheduled', 'dialing'))`).run(queue.id, queue.id, queue.id).changes === 1;
  }

  figures(queue: Queue): QueueFigures {
    const waiting = this.db.prepare('SELECT COUNT(*) AS n, MIN(enqueued_at) AS first FROM acd_members WHERE queue_id = ?').get(queue.id) as { n: number; first: number | null };
    const free = this.db.prepare(`SELECT COUNT(*) AS n FROM acd_agents a JOIN acd_agent_queues q ON q.agent_id = a.id
      WHERE q.queue_id = ? AND a.status = 'available' AND a.activity = 'idle'`).get(queue.id) as { n: number };
    return {
      size: waiting.n,
      longestWaitSeconds: waiting.first === null ? 0 : Math.max(0, Math.floor((this.clock.now() - waiting.first) / 1000)),
      agentsAvailable: free.n,
    };
  }

  /** The callers waiting, first in line first. */
  waiting(queue: Queue): WaitingCaller[] {
    const now = this.clock.now();
    return (this.db.prepare('SELECT call_sid, enqueued_at FROM acd_members WHERE queue_id = ? ORDER BY enqueued_at, rowid').all(queue.id) as Array<{ call_sid: string; enqueued_at: number }>)
      .map((m, i) => ({ callSid: m.call_sid, position: i + 1, waitSeconds: Math.max(0, Math.floor((now - m.enqueued_at) / 1000)) }));
  }
}
