import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';

/** A control-plane process as the shared database knows it: where it runs and when it last proved alive. */
export interface Instance { id: string; host: string; pid: number; startedAt: string; beatAt: string }

interface Row { id: string; host: string; pid: number; started_at: string; beat_at: string }

export class InstanceRepo {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  register(id: string, host: string, pid: number): void {
    const now = this.#now();
    this.db.prepare('INSERT INTO instances (id, host, pid, started_at, beat_at) VALUES (?, ?, ?, ?, ?)').run(id, host, pid, now, now);
  }

  beat(id: string): void {
    this.db.prepare('UPDATE instances SET beat_at = ? WHERE id = ?').run(this.#now(), id);
  }

  remove(id: string): void {
    this.db.prepare('DELETE FROM instances WHERE id = ?').run(id);
  }

  list(): Instance[] {
    return (this.db.prepare('SELECT * FROM instances ORDER BY started_at').all() as Row[])
      .map((r) => ({ id: r.id, host: r.host, pid: r.pid, startedAt: r.started_at, beatAt: r.beat_at }));
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
