// Which transaction the running code is inside, if any. A query a transaction's own code sends through the database
// instead of through its `tx` would, on SQLite, wait for that same transaction to end (a deadlock), and on
// PostgreSQL run outside it (seeing none of its writes, escaping its rollback): both are refused at once. Work the
// transaction's code schedules for later (a timer) carries its context too, so a transaction counts only while open.
import { AsyncLocalStorage } from 'node:async_hooks';

interface Scope { db: object; open: boolean }

const scope = new AsyncLocalStorage<Scope>();
/**
 * Transactions open in this process. Once none is, the storage is disabled: while enabled, Node runs a hook on every
 * promise the process makes, and those hooks and their records were most of a simple API request's garbage; with
 * nothing open there is nothing to track. `run` enables it again for the next one.
 */
let openTransactions = 0;

export async function inScope<T>(db: object, fn: () => Promise<T>): Promise<T> {
  const current: Scope = { db, open: true };
  openTransactions++;
  try {
    return await scope.run(current, fn);
  } finally {
    current.open = false;
    if (--openTransactions === 0) scope.disable();
  }
}

export function refuseInside(db: object, what: string): void {
  const current = scope.getStore();
  if (current?.db === db && current.open) throw new Error(`${what} inside a transaction of the same database: use the transaction's own queries`);
}

/** Runs `fn` as code outside every transaction: work shared by many callers, started by whichever came first. */
export function outsideTransactions<T>(fn: () => T): T {
  return scope.exit(fn);
}
