// Which transaction the running code is inside, if any. A query a transaction's own code sends through the database
// instead of through its `tx` would, on SQLite, wait for that same transaction to end (a deadlock), and on
// PostgreSQL run outside it (seeing none of its writes, escaping its rollback): both are refused at once.
import { AsyncLocalStorage } from 'node:async_hooks';

const scope = new AsyncLocalStorage<object>();

export function inScope<T>(owner: object, fn: () => Promise<T>): Promise<T> { return scope.run(owner, fn); }

export function refuseInside(owner: object, what: string): void {
  if (scope.getStore() === owner) throw new Error(`${what} inside a transaction of the same database: use the transaction's own queries`);
}
