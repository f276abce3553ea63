// Prints the master key and the operator token of the data dir given, creating them as a starting node does
// (test/config.test.ts starts several at once on one data dir).
import { loadMasterKey } from '../../src/config.js';
import { operatorToken } from '../../src/operator-token.js';

const dir = process.argv[2]!;
process.stdout.write(`${loadMasterKey(dir, {}).toString('hex')} ${operatorToken(dir, true)}\n`);
