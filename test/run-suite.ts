// `npm test`: tap, with one throwaway PostgreSQL server for the whole run. Its URL reaches every test file
// through RINGBASE_TEST_POSTGRES_URL (each file makes its own database on it); it is stopped when tap is done.
// A wrapper rather than tap's `before`/`after` options: those run a separate program to completion, which can
// neither put the URL into the environment tap gives the test files nor tie the server to this run's life.
// Arguments go to tap as they are (`npm test -- test/store/x.test.ts`); tap's output, summary line included, is
// passed through untouched, and tap's exit status is this script's.
import { spawn } from 'node:child_process';
import { constants } from 'node:os';
import path from 'node:path';
import { findPostgresBinaries, SKIP_LINE, startPostgresServer, URL_VAR, type PostgresServer } from './helpers/postgres.js';
import { ROOT } from './helpers/spawn.js';

const env = { ...process.env };
let server: PostgresServer | undefined;
// A URL set by the caller (a server of one's own) is used as it is.
if (!env[URL_VAR]) {
  const bin = findPostgresBinaries();
  if (bin) {
    server = await startPostgresServer(bin);
    env[URL_VAR] = server.url;
  } else {
    process.stdout.write(`# ${SKIP_LINE}\n`);
  }
}

const tap = spawn(path.join(ROOT, 'node_modules', '.bin', 'tap'), process.argv.slice(2), { stdio: 'inherit', env });
// Told to stop, tap passes the signal on to its test processes and exits once they have; this script then exits
// as tap did. killOnExit, which guards the server, kills it at once on these signals. Passed on once only: tap
// takes a second signal as the default action (it dies at once, leaving its test processes running).
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) process.once(signal, () => tap.kill(signal));
const [code, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve, reject) => {
  tap.once('exit', (c, s) => resolve([c, s]));
  tap.once('error', reject);
});
await server?.stop();
process.exit(code ?? 128 + constants.signals[signal!]);
