// Signals between the control planes sharing one database: a change one node makes that the others must act on at
// once, for what they carry (a conference some of their calls are in has started or ended). On PostgreSQL a signal
// is a NOTIFY sent in the change's transaction (delivered on commit, never for a rollback) and received on each
// process's LISTEN connection (postgres-listener.ts). On SQLite one process takes the calls, so there is nobody to
// tell: the sender acts on what it carries itself, as every sender does.
import type { SqlQueries } from './sql.js';

export type SignalTopic = 'conference';

export interface Signals {
  /** Sends `message` on `topic` to every other process on the database, once `q`'s transaction commits (now, outside one). */
  send(q: SqlQueries, topic: SignalTopic, message: string): Promise<void>;
  /** Calls `handler` with each message another process sends on `topic`; returns the unsubscribe function. */
  subscribe(topic: SignalTopic, handler: (message: string) => void): () => void;
}

/** SQLite's: nobody else to tell. */
export const noSignals: Signals = {
  send: async () => undefined,
  subscribe: () => () => undefined,
};
