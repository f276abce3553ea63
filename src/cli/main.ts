import { Command } from 'commander';
import { ConfigError } from '../config.js';
import { CliError, openContext, type CliContext, type Runner } from './context.js';
import { describeError } from './errors.js';
import { accountCommands } from './accounts.js';
import { keyCommands } from './keys.js';
import { numberCommands } from './numbers.js';
import { simulateCommands } from './simulate.js';
import { markupCommands } from './markup.js';
import { carrierCommands } from './carriers.js';
import { mediaCommands } from './media.js';
import { userCommands } from './users.js';
import { orgCommands } from './org.js';
import { dbCommands, type ConfigRunner } from './db.js';
import { clusterCommands } from './cluster.js';
import { loadConfig } from '../config.js';

const program = new Command('ringbase')
  .description('Ringbase operator CLI: works on the data dir in RINGBASE_DATA_DIR (default ./data)')
  .option('--json', 'machine-readable JSON output', false)
  .showHelpAfterError();

function fail(message: string, code: number, json: boolean): never {
  process.stderr.write(json ? JSON.stringify({ error: message }) + '\n' : `ringbase: ${message}\n`);
  process.exit(code);
}

/** Turns known errors into an exit code and message. */
function failOn(err: unknown, json: boolean): never {
  if (err instanceof CliError) fail(err.message, err.exitCode, json);
  if (err instanceof ConfigError) fail(`configuration error: ${err.message}`, 78, json);
  fail(describeError(err), 1, json);
}

/** Wraps an action: opens the store, runs, closes, and turns known errors into an exit code and message. */
const run: Runner = (fn) => {
  return async (...args) => {
    const json = Boolean(program.opts().json);
    let ctx: CliContext | undefined;
    try {
      ctx = await openContext(json);
      await fn(ctx, ...args);
    } catch (err) {
      failOn(err, json);
    } finally {
      await ctx?.store.close();
    }
  };
};

/** Wraps an action that works on the database itself (it must not open the store first). */
const runOnConfig: ConfigRunner = (fn) => {
  return async (...args) => {
    const json = Boolean(program.opts().json);
    const out = (result: unknown, human: string | string[]) => {
      process.stdout.write(json ? JSON.stringify(result) + '\n' : [human].flat().join('\n') + '\n');
    };
    try {
      await fn({ config: loadConfig(), out }, ...args);
    } catch (err) {
      failOn(err, json);
    }
  };
};

// Piping into `head` closes stdout early; that is the reader's choice, not an error.
process.stdout.on('error', (err: NodeJS.ErrnoException) => {
  if (err.code === 'EPIPE') process.exit(0);
  throw err;
});

accountCommands(program, run);
keyCommands(program, run);
numberCommands(program, run);
simulateCommands(program, run);
markupCommands(program, run);
carrierCommands(program, run);
mediaCommands(program, run);
userCommands(program, run);
orgCommands(program, run);
clusterCommands(program, run);
dbCommands(program, runOnConfig);

await program.parseAsync(process.argv);
