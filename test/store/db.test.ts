// The SQLite file itself (SQLite by nature): its pragmas and migrations. Listed SQLite-only in test/run-suite.ts.
import t from 'tap';
import path from 'node:path';
import { openDb } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations.js';
import { tempDir } from '../helpers/harness.js';

t.test('migrations run once and the database is configured for concurrent use', async (t) => {
  const file = path.join(tempDir(t), 'sub', 'rb.db');
  const db = openDb(file);
  t.equal(db.pragma('user_version', { simple: true }), migrations.length);
  t.equal(db.pragma('journal_mode', { simple: true }), 'wal');
  t.equal(db.pragma('foreign_keys', { simple: true }), 1);
  t.equal(db.pragma('busy_timeout', { simple: true }), 5000);
  db.prepare("INSERT INTO accounts (name, trunk_capacity, created_at) VALUES ('x', 1, 'now')").run();
  db.close();
  const again = openDb(file);
  t.equal((again.prepare('SELECT count(*) n FROM accounts').get() as { n: number }).n, 1, 'reopening keeps data');
  t.throws(() => again.prepare("INSERT INTO api_keys (account_id, key_hash, prefix, last4, created_at) VALUES (99, 'h', 'p', 'l', 'now')").run(),
    /FOREIGN KEY/, 'foreign keys enforced');
  again.pragma(`user_version = ${migrations.length + 1}`);
  again.close();
  t.throws(() => openDb(file), /newer than this build/, 'refuses a schema from the future');
});
