// Timeline entries noted while calls run, written together once per event-loop turn (issue 29). Written one by one,
// every entry was a commit of its own: on the conference bench's bursts a WAL append each on SQLite (1,350 entries,
// 175 µs apiece, for 150 calls), a round trip each on PostgreSQL. An entry waits at most until the loop's check
// phase (setImmediate): that turn is what a SIGKILL can lose beyond a write already under way. Batches are written
// one at a time, rows in the order noted, so each call's entries keep their order (ids ascending). A batch the
// database refuses is written again row by row, so one bad entry (its call row gone) takes no other with it.
// Reads of a timeline wait for the entries noted before them (flushed()), so this process reads what it noted.
import type { SqlDb } from './sql.js';
import { outsideTransactions } from './transaction-scope.js';

/** Rows per INSERT: each row count is a statement of its own in the prepared-statement cache, so they stay few. */
const MAX_ROWS = 64;

export interface TimelineRow { sid: string; at: string; kind: string; detail: string }

interface Queued extends TimelineRow { settle(err?: unknown): void }

const insert = (rows: number) => `INSERT INTO call_timeline (call_sid, at, kind, detail) VALUES ${Array(rows).fill('(?, ?, ?, ?)').join(', ')}`;

export class TimelineWriter {
  #queue: Queued[] = [];
  /** The write of the entries queued this turn, once it is scheduled; settles when they are written. */
  #next: Promise<void> | null = null;
  /** Settles when the batches begun so far are written (never rejects: each entry settles on its own). */
  #writing: Promise<void> = Promise.resolve();

  constructor(private readonly sql: SqlDb) {}

  /** Queues `row`; resolves once it is stored, rejects if it cannot be. */
  add(row: TimelineRow): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.#queue.push({ ...row, settle: (err) => (err === undefined ? resolve() : reject(err)) });
      // Scheduled outside any transaction the first entry's code runs in: the batch is every caller's, not its.
      this.#next ??= outsideTransactions(() => new Promise<void>((turn) => { setImmediate(turn); }).then(() => {
        this.#next = null;
        this.#writing = this.#writing.then(() => this.#writeQueued());
        return this.#writing;
      }));
    });
  }

  /**
   * Resolves once every entry queued before the call is written (or refused): reads wait for it, so this process
   * reads every entry it noted. Entries queued later are not waited for, so a busy writer cannot hold a reader.
   */
  flushed(): Promise<void> { return this.#next ?? this.#writing; }

  async #writeQueued(): Promise<void> {
    // Everything queued by now, including entries that arrived while the previous batch was written.
    const batch = this.#queue.splice(0);
    for (let i = 0; i < batch.length; i += MAX_ROWS) await this.#write(batch.slice(i, i + MAX_ROWS));
  }

  async #write(rows: Queued[]): Promise<void> {
    const values = (r: Queued) => [r.sid, r.at, r.kind, r.detail];
    try {
      await this.sql.run(insert(rows.length), rows.flatMap(values));
      for (const r of rows) r.settle();
    } catch (err) {
      if (rows.length === 1) return rows[0]!.settle(err);
      for (const r of rows) {
        try {
          await this.sql.run(insert(1), values(r));
          r.settle();
        } catch (rowErr) {
          r.settle(rowErr);
        }
      }
    }
  }
}
