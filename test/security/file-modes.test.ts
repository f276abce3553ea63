import t from 'tap';
import { chmodSync, mkdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { scene, CALLER, DID } from '../engine-suite/flows.js';
import { xml } from '../helpers/webhook-app.js';
import { tempDir } from '../helpers/harness.js';
import { openStore, DB_FILE } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';

const mode = (p: string) => statSync(p).mode & 0o777;

t.test('a real app keeps its data dir 0700, database files 0600, recordings 0600 in 0700 dirs', async (t) => {
  const d = await sandboxDriver(t);
  const s = await scene(t, d, { recording: { mode: 'from-answer', tracks: 'both', callback_url: null, immutable: false } });
  s.app.on('/voice', xml('<Say>Hello.</Say><Pause length="2"/>'));
  const call = await d.inbound(CALLER, DID);
  await call.ended;
  await s.finalCall();
  const recording = await d.h.store.sql.one<{ file: string }>('SELECT file FROM recordings WHERE status = ?', ['completed']);
  t.ok(recording, 'a recording was made');
  const dataDir = d.h.dataDir;
  t.equal(mode(dataDir), 0o700, 'data dir');
  // The database files are in the data dir on SQLite only; on PostgreSQL they are the server's, kept by it.
  if (d.h.store.sql.dialect === 'sqlite') for (const f of [DB_FILE, `${DB_FILE}-wal`, `${DB_FILE}-shm`]) t.equal(mode(path.join(dataDir, f)), 0o600, f);
  t.equal(mode(path.join(dataDir, 'recordings')), 0o700, 'recordings dir');
  t.equal(mode(path.dirname(recording!.file)), 0o700, "the account's recordings dir");
  t.equal(mode(recording!.file), 0o600, 'the recording');
});

// This test and the next are about the SQLite file (its -wal and -shm too) in the data dir: they open SQLite on
// either half of the run, as an installation without RINGBASE_DATABASE_URL does.
t.test('paths left wide open by an earlier version are narrowed when the store opens', async (t) => {
  const dataDir = tempDir(t);
  chmodSync(dataDir, 0o755);
  const file = path.join(dataDir, DB_FILE);
  await (await openStore(dataDir, systemClock())).close();
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    writeFileSync(f, '', { flag: 'a' });
    chmodSync(f, 0o644);
  }
  const store = await openStore(dataDir, systemClock());
  t.teardown(() => store.close());
  t.equal(mode(dataDir), 0o700);
  for (const f of [file, `${file}-wal`, `${file}-shm`]) t.equal(mode(f), 0o600, path.basename(f));
});

t.test('a data dir that does not exist yet is created 0700, parents included', async (t) => {
  const root = tempDir(t);
  mkdirSync(path.join(root, 'srv'));
  const dataDir = path.join(root, 'srv', 'a', 'ringbase');
  const store = await openStore(dataDir, systemClock());
  t.teardown(() => store.close());
  t.equal(mode(dataDir), 0o700);
  t.equal(mode(path.join(root, 'srv', 'a')), 0o700, 'a parent it created');
  t.equal(mode(path.join(dataDir, DB_FILE)), 0o600);
});
