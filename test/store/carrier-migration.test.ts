// The upgrade to carriers with several sources, gateways and routes keeps what each carrier was: its one address
// both its source and its UDP gateway, its prefix its one route (none: every number).
import t from 'tap';
import Database from 'better-sqlite3';
import { migrate } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations.js';
import { CARRIER_GATEWAYS } from '../../src/store/migrations-carriers.js';
import { SqliteDb } from '../../src/store/sqlite-db.js';
import { SqliteDataVersion } from '../../src/store/read-cache.js';
import { CarrierRepo, carrierAtAddress } from '../../src/store/carriers.js';
import { FakeClock } from '../../src/clock.js';

t.test('carriers of one address each come through the upgrade as they were', async (t) => {
  const db = new Database(':memory:');
  const at = migrations.indexOf(CARRIER_GATEWAYS);
  t.ok(at > 0, 'a migration of its own');
  for (const m of migrations.slice(0, at)) db.exec(m);
  db.pragma(`user_version = ${at}`);
  const add = db.prepare("INSERT INTO carriers (name, host, port, prefix, created_at) VALUES (?, ?, ?, ?, '2026-01-01')");
  add.run('uk', '10.0.1.1', 5080, '+44');
  add.run('any', 'sip.carrier.example', null, null);
  migrate(db);
  const repo = new CarrierRepo(new SqliteDb(db), new FakeClock(0), new SqliteDataVersion(db));
  const [uk, any] = await repo.list();
  t.match(uk, { name: 'uk', ...carrierAtAddress('10.0.1.1', 5080, '+44') });
  t.match(any, { name: 'any', ...carrierAtAddress('sip.carrier.example', null, null) });
  t.same(Object.keys(db.prepare('SELECT * FROM carriers').get() as object).filter((c) => ['host', 'port', 'prefix'].includes(c)), [], 'the old columns are gone');
  db.close();
});
