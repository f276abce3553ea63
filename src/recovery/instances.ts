import type { SqlDb } from '../store/sql.js';
import type { Clock } from '../clock.js';

/** A control-plane process as the shared database knows it: where it runs and when it last proved alive. */
export interface Instance {
  id: string; host: string; pid: number; startedAt: string; beatAt: string;
  /** The survivor finishing this (dead) instance's calls, once one has claimed it. */
  reconciledBy: string | null;
  /** Where it answers its peers (the base URL of its HTTP listener), once it listens. */
  address: string | null;
  /** When it began draining (no new calls; it leaves once its calls end), or null. */
  drainingAt: string | null;
}

interface Row { id: string; host: string; pid: number; started_at: string; beat_at: string; reconciled_by: string | null; address: string | null; draining_at: string | null }

const toInstance = (r: Row): Instance => ({
  id: r.id, host: r.host, pid: r.pid, startedAt: r.started_at, beatAt: r.beat_at, reconciledBy: r.reconciled_by, address: r.address, drainingAt: r.draining_at,
});

export class InstanceRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  async register(id: string, host: string, pid: number): Promise<void> {
    const now = this.#now();
    await this.sql.run('INSERT INTO instances (id, host, pid, started_at, beat_at) VALUES (?, ?, ?, ?, ?)', [id, host, pid, now, now]);
  }

  /** Proves the instance alive; says whether it was asked to drain (`ringbase node drain`, or its own drain). */
  async beat(id: string): Promise<{ draining: boolean }> {
    const row = await this.sql.one<{ draining_at: string | null }>('UPDATE instances SET beat_at = ? WHERE id = ? RETURNING draining_at', [this.#now(), id]);
    return { draining: (row?.draining_at ?? null) !== null };
  }

  /** Marks the instance draining (the first time counts); false when no such instance is registered. */
  async drain(id: string): Promise<boolean> {
    return (await this.sql.run('UPDATE instances SET draining_at = COALESCE(draining_at, ?) WHERE id = ?', [this.#now(), id])).changes === 1;
  }

  async remove(id: string): Promise<void> {
    await this.sql.run('DELETE FROM instances WHERE id = ?', [id]);
  }

  /** Says where the instance answers its peers. */
  async advertise(id: string, address: string): Promise<void> {
    await this.sql.run('UPDATE instances SET address = ? WHERE id = ?', [address, id]);
  }

  async get(id: string): Promise<Instance | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM instances WHERE id = ?', [id]);
    return row && toInstance(row);
  }

  async list(): Promise<Instance[]> {
    return (await this.sql.all<Row>('SELECT * FROM instances ORDER BY started_at, id')).map(toInstance);
  }

  /**
   * Makes `by` the one survivor that finishes `dead`'s work, if `dead` is still as it was seen (no beat since, and
   * still claimed by `dead.reconciledBy`, which is null or a survivor that died too): a conditional update, so of
   * several survivors claiming at once (several nodes on PostgreSQL) exactly one gets it.
   */
  async claim(dead: Instance, by: string): Promise<boolean> {
    const result = dead.reconciledBy === null
      ? await this.sql.run('UPDATE instances SET reconciled_by = ? WHERE id = ? AND beat_at = ? AND reconciled_by IS NULL', [by, dead.id, dead.beatAt])
      : await this.sql.run('UPDATE instances SET reconciled_by = ? WHERE id = ? AND beat_at = ? AND reconciled_by = ?', [by, dead.id, dead.beatAt, dead.reconciledBy]);
    return result.changes === 1;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}

export interface Liveness {
  self: string;
  host: string;
  nowMs: number;
  /** A peer silent this long is dead, wherever it runs. */
  staleMs: number;
  pidAlive(pid: number): boolean;
}

/**
 * Dead instances: silent for `staleMs`, or on this host with their process gone (a restart after SIGKILL need
 * not wait for the heartbeat to go stale: the old pid answers at once).
 */
export function deadInstances(instances: readonly Instance[], l: Liveness): Instance[] {
  return instances.filter((i) => i.id !== l.self
    && (l.nowMs - Date.parse(i.beatAt) >= l.staleMs || (i.host === l.host && !l.pidAlive(i.pid))));
}

/** `kill(pid, 0)` probes without signalling: ESRCH means gone; EPERM means alive under another user. */
export function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
