import t from 'tap';
import { FakeClock } from '../../src/clock.js';
import { openStore } from '../../src/repositories.js';
import { openTestStore, tempDir } from '../helpers/harness.js';
import { harnessDatabase } from '../helpers/backends.js';

const binding = (contact: string, expiresAt: number) => ({
  endpointName: 'tr_alpha', contact, proxy: 'sip:127.0.0.1:5070;transport=udp', transport: 'udp', expiresAt,
});

t.test('a re-REGISTER refreshes its binding; listing is newest expiry first and ends at the expiry', async (t) => {
  const clock = new FakeClock();
  const store = await openTestStore(t, clock);
  const now = clock.now();
  await store.registrations.upsert(binding('sip:a@10.0.0.1', now + 60_000));
  await store.registrations.upsert(binding('sip:b@10.0.0.2', now + 120_000));
  await store.registrations.upsert({ ...binding('sip:a@10.0.0.1', now + 180_000), proxy: 'sip:127.0.0.1:5080;transport=tcp', transport: 'tcp' });
  t.same(await store.registrations.listLive('tr_alpha', now), [
    { ...binding('sip:a@10.0.0.1', now + 180_000), proxy: 'sip:127.0.0.1:5080;transport=tcp', transport: 'tcp' },
    binding('sip:b@10.0.0.2', now + 120_000),
  ], 'refreshed in place, not duplicated');
  t.same(await store.registrations.listLive('tr_other', now), [], 'per endpoint');

  t.same((await store.registrations.listLive('tr_alpha', now + 120_000)).map((r) => r.contact), ['sip:a@10.0.0.1'], 'gone at its expiry');
  t.equal(await store.registrations.pruneExpired(now + 120_000), 1, 'the expired row is pruned');
  t.equal(await store.registrations.pruneExpired(now + 120_000), 0);
  t.equal((await store.sql.one<{ n: number }>('SELECT count(*) AS n FROM sip_registrations'))!.n, 1, 'the live row stays');
});

t.test('remove drops one contact, removeAll every contact of one endpoint', async (t) => {
  const clock = new FakeClock();
  const store = await openTestStore(t, clock);
  const later = clock.now() + 60_000;
  await store.registrations.upsert(binding('sip:a@10.0.0.1', later));
  await store.registrations.upsert(binding('sip:b@10.0.0.2', later));
  await store.registrations.upsert(binding('sip:c@10.0.0.3', later));
  await store.registrations.upsert({ ...binding('sip:x@10.0.0.9', later), endpointName: 'tr_beta' });
  t.equal(await store.registrations.remove('tr_alpha', 'sip:b@10.0.0.2'), true);
  t.equal(await store.registrations.remove('tr_alpha', 'sip:b@10.0.0.2'), false, 'already gone');
  t.same((await store.registrations.listLive('tr_alpha', clock.now())).map((r) => r.contact).sort(), ['sip:a@10.0.0.1', 'sip:c@10.0.0.3']);
  t.equal(await store.registrations.removeAll('tr_alpha'), 2);
  t.same(await store.registrations.listLive('tr_alpha', clock.now()), []);
  t.equal((await store.registrations.listLive('tr_beta', clock.now())).length, 1, 'other endpoints untouched');
});

t.test('registrations survive closing and reopening the database; first registration time is kept', async (t) => {
  const clock = new FakeClock();
  const dir = tempDir(t);
  const database = await harnessDatabase(t);
  const first = await openStore(dir, clock, database);
  await first.registrations.upsert(binding('sip:a@10.0.0.1', clock.now() + 3_600_000));
  await clock.advance(1_000);
  await first.registrations.upsert(binding('sip:a@10.0.0.1', clock.now() + 3_600_000));
  await first.close();

  const again = await openStore(dir, clock, database);
  t.teardown(() => again.close());
  t.same(await again.registrations.listLive('tr_alpha', clock.now()), [binding('sip:a@10.0.0.1', clock.now() + 3_600_000)]);
  const row = (await again.sql.one<{ created_at: string; updated_at: string }>('SELECT created_at, updated_at FROM sip_registrations'))!;
  t.ok(row.created_at < row.updated_at, 'created_at is the first REGISTER, updated_at the refresh');
});
