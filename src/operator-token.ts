import { existsSync, readFileSync, mkdirSync } from 'node:fs';
import { readOrCreatePrivateFile } from './private-files.js';
import path from 'node:path';
import { randomToken } from './crypto/tokens.js';

const FILE = 'operator.token';

/**
 * The operator's credential for the server's /operator routes (simulations): a random token in the data dir,
 * readable only by the user running Ringbase. Whoever can read the data dir is the operator anyway.
 */
export function operatorToken(dataDir: string, create: boolean): string | null {
  const file = path.join(dataDir, FILE);
  if (existsSync(file)) return readFileSync(file, 'utf8').trim();
  if (!create) return null;
  mkdirSync(dataDir, { recursive: true });
  return readOrCreatePrivateFile(file, `op_${randomToken(32)}\n`).trim();
}
