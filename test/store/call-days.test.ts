// The calls per account and UTC day that the dashboard's home page charts, on SQLite and PostgreSQL: counted as
// calls are created and answered (dialled legs and second answers not), equal to counting the calls, and counted
// again by `ringbase db rebuild-rollups`'s rebuild; concurrent creations on one day lose no count; an upgrade fills
// them from the calls it finds.
import t from 'tap';
import { onEachBackend } from '../helpers/backends.js';
import { FakeClock } from '../../src/clock.js';
import { CallRepo } from '../../src/store/calls.js';
import { CALL_DAYS_FROM_CALLS, rebuildCallDays } from '../../src/store/call-days.js';
import type { SqlDb } from '../../src/store/sql.js';
import Database from 'better-sqlite3';
import { migrate } from '../../src/store/db.js';
import { migrations } from '../../src/store/migrations.js';
import { CALL_DAYS } from '../../src/store/migrations-rollups.js';

const DAY = 86_400_000;
const NOON = Date.parse('2026-03-10T12:00:00Z');

async function account(db: SqlDb, name: string): Promise<number> {
  return (await db.one<{ id: number }>("INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES (?, 0, 0, '2026-01-01') RETURNING id", [name]))!.id;
}

const kept = (db: SqlDb) => db.all<{ account_id: number; day: string; calls: number; answered: number }>('SELECT * FROM call_days ORDER BY account_id, day');
const counted = async (db: SqlDb) => (await db.all<{ account_id: number; day: string; calls: number; answered: number }>(CALL_DAYS_FROM_CALLS))
  .sort((a, b) => a.account_id - b.account_id || a.day.localeCompare(b.day));

onEachBackend(t, 'calls and their answers are counted on the day each call was created', async (t, db) => {
  const clock = new FakeClock(NOON);
  const calls = new CallRepo(db, clock, 'node-a');
  const a = await account(db, 'a');
  const b = await account(db, 'b');
  const make = (sid: string, accountId: number, agoDays: number, parentSid?: string) => calls.create({
    sid, accountId, direction: 'inbound', from: '+15557770001', to: '+15550001000', status: 'ringing', createdAtMs: NOON - agoDays * DAY, ...(parentSid ? { parentSid } : {}),
  });
  await make('CA1', a, 0);
  await make('CA2', a, 0);
  await make('CA3', a, 2);
  await make('CA4', b, 0);
  await make('CALEG', a, 0, 'CA1');
  await calls.markAnswered('CA1');
  await calls.markAnswered('CA1');
  await calls.markAnswered('CALEG');
  // Answered the next day: counted on the day the call began, as the chart has always shown it.
  clock.advance(DAY);
  await calls.markAnswered('CA3');
  await db.transaction((tx) => calls.markAnswered('CA4', tx));
  t.same(await kept(db), [
    { account_id: a, day: '2026-03-08', calls: 1, answered: 1 },
    { account_id: a, day: '2026-03-10', calls: 2, answered: 1 },
    { account_id: b, day: '2026-03-10', calls: 1, answered: 1 },
  ], 'a dialled leg and a second answer are not counted');
  t.same(await kept(db), await counted(db), 'the same as counting the calls');

  // Rows written around the repository (an import, a bench) are counted by the rebuild.
  await db.run("INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, created_at, answered_at) VALUES ('CA9', ?, 'inbound', 'x', 'y', 'completed', '2026-03-01T00:00:00.000Z', '2026-03-01T00:00:01.000Z')", [b]);
  t.equal(await rebuildCallDays(db), 4, 'four account-days');
  t.same(await kept(db), await counted(db), 'rebuilt: the same as counting the calls');
  t.same((await kept(db)).find((r) => r.day === '2026-03-01'), { account_id: b, day: '2026-03-01', calls: 1, answered: 1 });
});

onEachBackend(t, 'concurrent creations and answers on one day lose no count', async (t, db) => {
  const calls = new CallRepo(db, new FakeClock(NOON), 'node-a');
  const a = await account(db, 'a');
  const sids = Array.from({ length: 40 }, (_, i) => `CA${i}`);
  await Promise.all(sids.map((sid) => calls.create({ sid, accountId: a, direction: 'inbound', from: 'x', to: 'y', status: 'ringing' })));
  await Promise.all(sids.filter((_, i) => i % 2 === 0).map((sid) => calls.markAnswered(sid)));
  t.same(await kept(db), [{ account_id: a, day: '2026-03-10', calls: 40, answered: 20 }]);
});

t.test('the migration that adds the counts fills them from the calls already there', async (t) => {
  const db = new Database(':memory:');
  const at = migrations.indexOf(CALL_DAYS);
  t.ok(at > 0, 'the counts come with a migration of their own');
  for (const m of migrations.slice(0, at)) db.exec(m);
  db.pragma(`user_version = ${at}`);
  db.exec("INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES ('a', 0, 0, '2026-01-01')");
  const call = db.prepare("INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, parent_sid, created_at, answered_at) VALUES (?, 1, 'inbound', 'x', 'y', 'completed', ?, ?, ?)");
  call.run('CA1', null, '2026-03-10T01:00:00.000Z', '2026-03-10T01:00:05.000Z');
  call.run('CA2', null, '2026-03-10T23:00:00.000Z', null);
  call.run('CA3', 'CA1', '2026-03-10T01:00:01.000Z', '2026-03-10T01:00:02.000Z');
  migrate(db);
  t.same(db.prepare('SELECT account_id, day, calls, answered FROM call_days').all(), [{ account_id: 1, day: '2026-03-10', calls: 2, answered: 1 }]);
  db.close();
});
