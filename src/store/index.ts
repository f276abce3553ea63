import path from 'node:path';
import type { Clock } from '../clock.js';
import { openDb, type Db } from './db.js';
import { AccountRepo } from './accounts.js';
import { ApiKeyRepo } from './api-keys.js';
import { TrunkRepo } from './trunks.js';

export interface Store {
  db: Db;
  accounts: AccountRepo;
  apiKeys: ApiKeyRepo;
  trunks: TrunkRepo;
  close(): void;
}

export const DB_FILE = 'ringbase.db';

export function openStore(dataDir: string, clock: Clock): Store {
  const db = openDb(path.join(dataDir, DB_FILE));
  return {
    db,
    accounts: new AccountRepo(db, clock),
    apiKeys: new ApiKeyRepo(db, clock),
    trunks: new TrunkRepo(db, clock),
    close: () => db.close(),
  };
}
