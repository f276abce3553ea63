// Two control planes (two apps, each with its own store, engine and HTTP server) on one fresh PostgreSQL database
// with one master key, as in a cluster; null (the test skipped, saying why) without PostgreSQL.
import { randomBytes } from 'node:crypto';
import type { Clock } from '../../src/clock.js';
import { startHarness, type Harness } from './harness.js';
import { createTestDatabase, postgresOrSkip } from './postgres.js';
import { NumberService } from '../../src/numbers/service.js';

type Tap = Parameters<typeof postgresOrSkip>[0] & Parameters<typeof startHarness>[0];

export async function startTwoNodes(t: Tap, opts: { env: Record<string, string>; clock?: Clock }): Promise<[Harness, Harness] | null> {
  const server = await postgresOrSkip(t);
  if (!server) return null;
  const database = await createTestDatabase(server);
  t.teardown(() => database.drop());
  const shared = { url: database.url, poolSize: 4 };
  const masterKey = randomBytes(32);
  const node = () => startHarness(t, { ...opts, database: shared, masterKey });
  return [await node(), await node()];
}

/** startTwoNodes, with an account (created through A) holding the number `did`. */
export async function twoNodesWithNumber(t: Tap, opts: { env: Record<string, string>; clock?: Clock }, did: string) {
  const nodes = await startTwoNodes(t, opts);
  if (!nodes) return null;
  const [a, b] = nodes;
  const account = await a.account();
  await new NumberService(a.store.numbers, { allowLocalTargets: true }).add(did, account.id);
  return { a, b, account, key: account.key };
}
