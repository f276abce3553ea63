import { loadConfig, loadMasterKey, type Config } from '../config.js';
import { systemClock } from '../clock.js';
import { openStore, type Store } from '../repositories.js';
import { createSecretBox, type SecretBox } from '../crypto/secret-box.js';

export class CliError extends Error {
  constructor(message: string, readonly exitCode = 1) { super(message); }
}

export interface CliContext {
  config: Config;
  store: Store;
  secrets: SecretBox;
  json: boolean;
  /** Prints a result: the object as one JSON line with --json, else the human text. */
  out(result: unknown, human: string | string[]): void;
}

/** Opens the server's database (its SQLite file, where WAL makes that safe while the server runs, or PostgreSQL). */
export async function openContext(json: boolean): Promise<CliContext> {
  const config = loadConfig();
  const clock = systemClock();
  const store = await openStore(config.dataDir, clock, config.database);
  const secrets = createSecretBox(loadMasterKey(config.dataDir));
  return {
    config, store, secrets, json,
    out(result, human) {
      process.stdout.write(json ? JSON.stringify(result) + '\n' : [human].flat().join('\n') + '\n');
    },
  };
}

/** Wraps a command action with an opened context and error-to-exit-code handling (see main.ts). */
export type Runner = <A extends unknown[]>(fn: (ctx: CliContext, ...args: A) => void | Promise<void>) => (...args: A) => Promise<void>;

export function parseId(value: string, what: string): number {
  if (!/^\d+$/.test(value)) throw new CliError(`${what} must be a whole number, got "${value}"`);
  return Number(value);
}
