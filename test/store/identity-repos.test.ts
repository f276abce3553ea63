// The identity and access repositories on both backends: accounts, API keys, carriers, SIP registrations, users
// (emails without case), organisation settings and leads; and where PostgreSQL needs explicit locking, that
// concurrent writers all count.
import t from 'tap';
import { FakeClock } from '../../src/clock.js';
import { AccountRepo } from '../../src/store/accounts.js';
import { ApiKeyRepo } from '../../src/store/api-keys.js';
import { CarrierNameTakenError, CarrierRepo } from '../../src/store/carriers.js';
import { RegistrationRepo } from '../../src/store/registrations.js';
import { UserRepo } from '../../src/users/repo.js';
import { OrgSettingsRepo } from '../../src/org/settings.js';
import { LeadRepo } from '../../src/org/leads.js';
import { SigningSecrets } from '../../src/accounts/signing-secret.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import type { SqlDb } from '../../src/store/sql.js';
import { onEachBackend } from '../helpers/backends.js';
import { cacheInvalidationFor } from '../helpers/caches.js';
import { randomBytes } from 'node:crypto';
import { carrierAtAddress } from '../../src/store/carriers.js';

const clock = () => new FakeClock(Date.parse('2026-11-25T12:00:00Z'));

async function repos(t: Parameters<Parameters<typeof onEachBackend>[2]>[0], db: SqlDb) {
  const c = clock();
  const caches = await cacheInvalidationFor(t, db);
  return {
    clock: c,
    accounts: new AccountRepo(db, c, caches), apiKeys: new ApiKeyRepo(db, c, caches), orgSettings: new OrgSettingsRepo(db, c, caches),
    carriers: new CarrierRepo(db, c, caches), registrations: new RegistrationRepo(db, c), users: new UserRepo(db, c), leads: new LeadRepo(db, c),
  };
}

onEachBackend(t, 'accounts: create, read (cached), update, list; concurrent updates of different fields both stay', async (t, db) => {
  const r = await repos(t, db);
  const a = await r.accounts.create({ name: 'acme', trunking: true, trunkCapacity: 5 });
  t.match(a, { name: 'acme', trunking: true, trunkCapacity: 5, recordingControls: true });
  t.same(await r.accounts.get(a.id), a);
  t.equal(await r.accounts.get(a.id), await r.accounts.get(a.id), 'the same frozen object until it changes');
  t.equal(await r.accounts.get(a.id + 100), undefined);
  await Promise.all([r.accounts.update(a.id, { cpsCap: 7 }), r.accounts.update(a.id, { name: 'renamed' }), r.accounts.update(a.id, { trunking: false })]);
  t.match(await r.accounts.get(a.id), { cpsCap: 7, name: 'renamed', trunking: false }, 'every change kept, the cache forgot the old row');
  t.equal(await r.accounts.update(a.id + 100, { cpsCap: 1 }), undefined);
  await r.accounts.create({ name: 'second', trunking: false, trunkCapacity: 0 });
  t.same((await r.accounts.list()).map((x) => x.name), ['renamed', 'second']);
});

onEachBackend(t, 'API keys: a key authenticates until revoked; revoking is scoped to the account when one is given', async (t, db) => {
  const r = await repos(t, db);
  const a = await r.accounts.create({ name: 'a', trunking: false, trunkCapacity: 0 });
  const b = await r.accounts.create({ name: 'b', trunking: false, trunkCapacity: 0 });
  const { key, summary } = await r.apiKeys.create(a.id, 'billing');
  t.match(summary, { accountId: a.id, name: 'billing', revokedAt: null, last4: key.slice(-4) });
  t.equal((await r.apiKeys.authenticate(key))?.id, summary.id);
  t.ok((await r.apiKeys.get(summary.id))?.lastUsedAt, 'last use recorded');
  t.equal(await r.apiKeys.authenticate(`${key}x`), undefined);
  t.equal(await r.apiKeys.authenticate('not-a-key'), undefined);
  t.notOk(await r.apiKeys.revoke(summary.id, b.id), "another account cannot revoke it");
  t.ok(await r.apiKeys.authenticate(key));
  t.ok(await r.apiKeys.revoke(summary.id, a.id));
  t.notOk(await r.apiKeys.revoke(summary.id), 'revoked once');
  t.equal(await r.apiKeys.authenticate(key), undefined, 'refused at once in this process');
  t.same((await r.apiKeys.listForAccount(a.id)).map((k) => k.id), [summary.id]);
});

onEachBackend(t, 'carriers: a name is taken once, also by two adds at once', async (t, db) => {
  const r = await repos(t, db);
  const results = await Promise.allSettled([1, 2, 3].map((i) => r.carriers.add('telco', carrierAtAddress(`10.0.0.${i}`, null, null))));
  t.equal(results.filter((x) => x.status === 'fulfilled').length, 1, 'one add wins');
  t.ok(results.filter((x) => x.status === 'rejected').every((x) => (x as PromiseRejectedResult).reason instanceof CarrierNameTakenError));
  const added = await r.carriers.add('uk', carrierAtAddress('10.0.1.1', 5080, '+44'));
  t.match(await r.carriers.byName('uk'), { sources: [{ network: '10.0.1.1', port: 5080 }], gateways: [{ host: '10.0.1.1', port: 5080, transport: 'udp' }], routes: [{ prefix: '+44' }] });
  t.same(await r.carriers.get(added.id), added);
  t.same((await r.carriers.list()).map((c) => c.name), ['telco', 'uk']);
  t.ok(await r.carriers.remove('uk'));
  t.notOk(await r.carriers.remove('uk'));
});

onEachBackend(t, 'registrations: upsert refreshes, listLive is newest expiry first, prune removes the expired', async (t, db) => {
  const r = await repos(t, db);
  const now = r.clock.now();
  const binding = (contact: string, expiresAt: number, transport = 'udp') => ({ endpointName: 'tr_a', contact, proxy: 'sip:127.0.0.1:5070', transport, expiresAt });
  await r.registrations.upsert(binding('sip:a@10.0.0.1', now + 60_000));
  await r.registrations.upsert(binding('sip:b@10.0.0.2', now + 120_000));
  await r.registrations.upsert(binding('sip:a@10.0.0.1', now + 180_000, 'tcp'));
  t.same(await r.registrations.listLive('tr_a', now), [binding('sip:a@10.0.0.1', now + 180_000, 'tcp'), binding('sip:b@10.0.0.2', now + 120_000)]);
  t.equal(await r.registrations.pruneExpired(now + 120_000), 1);
  t.ok(await r.registrations.remove('tr_a', 'sip:a@10.0.0.1'));
  t.equal(await r.registrations.removeAll('tr_a'), 0);
});

onEachBackend(t, 'users: emails are kept lower-case, found whatever their case, and taken once', async (t, db) => {
  const r = await repos(t, db);
  const a = await r.accounts.create({ name: 'a', trunking: false, trunkCapacity: 0 });
  const u = await r.users.create(a.id, 'Ada.Lovelace@Example.COM');
  t.equal(u?.email, 'ada.lovelace@example.com');
  t.equal((await r.users.getByEmail('ADA.LOVELACE@example.com'))?.id, u!.id);
  const again = await Promise.all([r.users.create(a.id, 'ada.lovelace@EXAMPLE.com'), r.users.create(a.id, 'x@example.com'), r.users.create(a.id, 'X@example.com')]);
  t.equal(again[0], undefined, 'the same email in another case is taken');
  t.equal(again.filter((x) => x !== undefined).length, 1, 'of two creates of one email at once, one wins');

  await r.users.addToken('hash1', u!.id, 'set-password', 60_000);
  t.ok(await r.users.tokenLive('hash1', 'set-password'));
  const consumed = await Promise.all([r.users.consumeToken('hash1', 'set-password'), r.users.consumeToken('hash1', 'set-password')]);
  t.same(consumed.filter((x) => x !== undefined), [u!.id], 'a token works exactly once');
  await r.users.addSession('s1', u!.id, 'csrf', 1_000);
  t.same(await r.users.session('s1'), { userId: u!.id, csrfToken: 'csrf', expiresAt: new Date(r.clock.now() + 1_000).toISOString() });
  await r.clock.advance(1_000);
  t.equal(await r.users.session('s1'), undefined, 'expired');
  await r.users.deleteExpired();
  t.same((await r.users.listForAccount(a.id)).map((x) => x.email).sort(), ['ada.lovelace@example.com', 'x@example.com']);
});

onEachBackend(t, 'users: a row stored with capitals before emails were lower-cased is still found', async (t, db) => {
  const r = await repos(t, db);
  const a = await r.accounts.create({ name: 'a', trunking: false, trunkCapacity: 0 });
  // PostgreSQL never had such rows: only SQLite's NOCASE column can hold one.
  if (db.dialect !== 'sqlite') return;
  await db.run('INSERT INTO users (account_id, email, created_at) VALUES (?, ?, ?)', [a.id, 'Old.User@Example.com', 'x']);
  t.equal((await r.users.getByEmail('old.user@example.com'))?.email, 'Old.User@Example.com');
  t.equal(await r.users.create(a.id, 'OLD.user@example.com'), undefined, 'and its email stays taken');
});

onEachBackend(t, 'organisation settings: allow-lists, concurrent changes all kept, the injection token', async (t, db) => {
  const r = await repos(t, db);
  const a = await r.accounts.create({ name: 'a', trunking: false, trunkCapacity: 0 });
  t.same((await r.orgSettings.get(a.id)).webhookHosts, []);
  await Promise.all(['a.example.com', 'b.example.com', 'c.example.com'].map((h) => r.orgSettings.allowHost(a.id, h)));
  t.same([...(await r.orgSettings.get(a.id)).webhookHosts].sort(), ['a.example.com', 'b.example.com', 'c.example.com'], 'no change lost');
  await r.orgSettings.removeHost(a.id, 'B.example.com');
  t.same([...(await r.orgSettings.get(a.id)).webhookHosts].sort(), ['a.example.com', 'c.example.com']);
  await t.rejects(r.orgSettings.removeHost(a.id, 'b.example.com'), /not on the webhook host allow-list/);

  await r.orgSettings.allowIp(a.id, '203.0.113.7/24');
  t.ok(await r.orgSettings.injectionIpAllowed(a.id, '203.0.113.200'));
  t.notOk(await r.orgSettings.injectionIpAllowed(a.id, '198.51.100.1'));
  const token = await r.orgSettings.rotateInjectionToken(a.id);
  t.equal(await r.orgSettings.accountForInjectionToken(token), a.id);
  t.ok((await r.orgSettings.get(a.id)).injectionTokenSet, 'the cached settings show the new token');
  await r.orgSettings.rotateInjectionToken(a.id);
  t.equal(await r.orgSettings.accountForInjectionToken(token), null, 'superseded');
});

onEachBackend(t, 'leads and signing secrets', async (t, db) => {
  const r = await repos(t, db);
  const a = await r.accounts.create({ name: 'a', trunking: false, trunkCapacity: 0 });
  const lead = await r.leads.create({ accountId: a.id, phone: '+15550001111', campaign: 'spring', attributes: { src: 'form' }, sourceIp: null });
  t.same(await r.leads.getForAccount(a.id, lead.sid), lead);
  t.equal(await r.leads.getForAccount(a.id + 1, lead.sid), undefined);

  const secrets = new SigningSecrets(r.accounts, createSecretBox(randomBytes(32)));
  const first = await Promise.all([secrets.get(a.id), secrets.get(a.id), secrets.get(a.id)]);
  t.equal(new Set(first).size, 1, 'first uses at once agree on one secret');
  t.equal(await secrets.get(a.id), first[0]);
  const rotated = await secrets.rotate(a.id);
  t.not(rotated, first[0]);
  t.equal(await secrets.get(a.id), rotated);
});
