// The store-bound benchmarks again on PostgreSQL, for rows beside SQLite's in the same `npm run bench`: the API
// (bench/api.ts), signed durable deliveries (bench/delivery.ts) and the ACD decision (bench/acd.ts), each in a
// process of its own on a fresh database of one throwaway PostgreSQL 15+ server (initdb in a temp dir, a unix
// socket, fsync on as in production: the figures include the server's commit cost). Their rows pass through with
// "[PostgreSQL]" in their names and the issue's PostgreSQL targets.
// Run: npx tsx bench/store.ts [api seconds=3] [deliveries=1000] [agents=1000] [waiting=10000] [decisions=3000]
import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createTestDatabase, findPostgresBinaries, SKIP_LINE, startPostgresServer } from '../test/helpers/postgres.js';

const HERE = path.dirname(fileURLToPath(import.meta.url));
const [apiSeconds = '3', deliveries = '1000', agents = '1000', waiting = '10000', decisions = '3000'] = process.argv.slice(2);
const SCRIPTS: Array<[file: string, args: string[]]> = [
  ['api.ts', [apiSeconds]],
  ['delivery.ts', [deliveries]],
  ['acd.ts', [agents, waiting, decisions]],
];

/** Runs one benchmark script with the database URL set, its output passed through as it comes. */
function runOn(url: string, file: string, args: string[]): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--import', 'tsx', path.join(HERE, file), ...args], {
      stdio: ['ignore', 'inherit', 'inherit'], env: { ...process.env, RINGBASE_DATABASE_URL: url },
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => (code === 0 ? resolve() : reject(new Error(`${file} on PostgreSQL ended with ${signal ?? `code ${code}`}`))));
  });
}

const bin = findPostgresBinaries();
if (!bin) {
  console.log(`# ${SKIP_LINE}`);
  process.exit(0);
}
const server = await startPostgresServer(bin, { durable: true });
try {
  for (const [file, args] of SCRIPTS) {
    const database = await createTestDatabase(server.url);
    try { await runOn(database.url, file, args); } finally { await database.drop(); }
  }
} finally {
  await server.stop();
}
