// The calls kernel's repositories on SQLite and PostgreSQL: conference creation by name and crash-reconciliation
// claims, where SQLite's one writer used to decide, decided on PostgreSQL by the unique index and conditional updates.
import t from 'tap';
import { onEachBackend } from '../helpers/backends.js';
import { FakeClock } from '../../src/clock.js';
import { ConferenceRepo, type NewConference } from '../../src/conferences/repo.js';
import { InstanceRepo } from '../../src/recovery/instances.js';
import { CallRepo } from '../../src/store/calls.js';
import { NumberRepo } from '../../src/numbers/repo.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import type { SqlDb } from '../../src/store/sql.js';

const clock = new FakeClock(Date.parse('2026-01-01T00:00:00Z'));

async function account(db: SqlDb): Promise<number> {
  return (await db.one<{ id: number }>("INSERT INTO accounts (name, trunking, trunk_capacity, created_at) VALUES ('a', 0, 0, '2026-01-01') RETURNING id"))!.id;
}

const conference = (accountId: number, sid: string): NewConference => ({
  sid, accountId, friendlyName: 'room', record: false, maxParticipants: 10, statusCallback: null, statusCallbackMethod: 'POST', statusCallbackEvents: [],
});

onEachBackend(t, 'concurrent creations of one conference name give one conference', async (t, db) => {
  const repo = new ConferenceRepo(db, clock);
  const accountId = await account(db);
  const results = await Promise.all(Array.from({ length: 8 }, (_, i) => repo.openOrCreate(conference(accountId, `CF${i}`))));
  t.equal(new Set(results.map((r) => r.conference.sid)).size, 1, 'every creator got the same conference');
  t.equal(results.filter((r) => r.created).length, 1, 'one created it');
  t.ok(await repo.markCompleted(results[0]!.conference.sid, 'last-participant-left'));
  const next = await repo.openOrCreate(conference(accountId, 'CFnext'));
  t.ok(next.created, 'a completed name is free again');
  t.equal((await repo.list(accountId, { beforeId: null, limit: 10 })).length, 2);
});

onEachBackend(t, 'participants: added when there is room, changed with what they were before', async (t, db) => {
  const repo = new ConferenceRepo(db, clock);
  const accountId = await account(db);
  const { conference: c } = await repo.openOrCreate({ ...conference(accountId, 'CF1'), maxParticipants: 1 });
  const p = { conferenceSid: c.sid, accountId, muted: false, startConferenceOnEnter: true, endConferenceOnExit: false, statusCallback: null };
  t.ok(await repo.addParticipantIfRoom({ ...p, callSid: 'CA1' }, 1));
  t.ok(await repo.setParticipantStatus(c.sid, 'CA1', 'in-progress'));
  t.equal(await repo.addParticipantIfRoom({ ...p, callSid: 'CA2' }, 1), null, 'full');
  const changed = await repo.updateParticipant(c.sid, 'CA1', { muted: true });
  t.equal(changed!.before.muted, false);
  t.equal(changed!.after.muted, true);
  t.same([await repo.nextSequence(c.sid), await repo.nextSequence(c.sid)], [1, 2]);
  t.same(await repo.emptySince('2027-01-01T00:00:00Z'), [], 'a conference with someone in it is not empty');
});

onEachBackend(t, 'two survivors claiming one dead instance: one gets it', async (t, db) => {
  const repo = new InstanceRepo(db, clock);
  await repo.register('dead', 'host', 1);
  const [dead] = await repo.list();
  const claims = await Promise.all(['a', 'b', 'c', 'd'].map((by) => repo.claim(dead!, by)));
  t.same(claims.filter(Boolean).length, 1, 'exactly one claim won');
  const claimed = (await repo.list())[0]!;
  t.ok(['a', 'b', 'c', 'd'].includes(claimed.reconciledBy!));
  t.notOk(await repo.claim(dead!, 'e'), 'a claim made on a stale view fails');
  t.ok(await repo.claim(claimed, 'e'), 'a claim held by a survivor that died too is taken over');
});

onEachBackend(t, 'calls: finished once, lost calls claimed once, timeline in order', async (t, db) => {
  const calls = new CallRepo(db, clock, 'owner1');
  const accountId = await account(db);
  const call = await calls.create({ sid: 'CA1', accountId, direction: 'inbound', from: '+1', to: '+2', status: 'ringing' });
  t.same(await calls.openOwners(), ['owner1']);
  t.same((await calls.openOf('owner1')).map((c) => c.sid), ['CA1']);
  const ends = await Promise.all(['x', 'y'].map((by) => db.transaction((tx) => calls.finishLost('CA1', { status: 'failed', endedAt: '2026-01-01T00:00:01Z', duration: 0, cause: by }, tx))));
  t.equal(ends.filter(Boolean).length, 1, 'one survivor finished it');
  const again = await calls.finish(call.sid, 'completed', 'late');
  t.equal(again.status, 'failed', 'a later finish leaves the first');
  await calls.addTimeline('CA1', 'a', { n: 1 });
  await calls.addTimeline('CA1', 'b', { n: 2 });
  t.same((await calls.timeline('CA1')).map((e) => e.kind), ['a', 'b']);
  t.same((await calls.list(accountId)).calls.map((c) => c.sid), ['CA1']);
});

onEachBackend(t, 'numbers: one add per number, one claim wins', async (t, db) => {
  const numbers = new NumberRepo(db, clock);
  const a = await account(db);
  const b = await account(db);
  const adds = await Promise.all([0, 1, 2].map(() => numbers.add('+15550001000', null, DEFAULT_NUMBER_SETTINGS)));
  t.equal(adds.filter(Boolean).length, 1);
  const n = (await numbers.getByE164('+15550001000'))!;
  const claims = await Promise.all([a, b].map((id) => numbers.claim(n.id, id)));
  t.equal(claims.filter(Boolean).length, 1);
});
