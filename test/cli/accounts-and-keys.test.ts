import t from 'tap';
import { statSync } from 'node:fs';
import path from 'node:path';
import { cli } from '../helpers/spawn.js';
import { operatorCli } from '../helpers/harness.js';
import { databaseEnv, storedBytes } from '../helpers/backends.js';
import { openStore } from '../../src/repositories.js';
import { systemClock } from '../../src/clock.js';

t.test('accounts and keys through the operator CLI', async (t) => {
  const { dataDir: dir, database, rb } = await operatorCli(t);
  const created = await rb('--json', 'account', 'create', '--name', 'Acme', '--trunking', '--trunk-capacity', '3');
  t.equal(created.code, 0, created.stderr);
  const account = JSON.parse(created.stdout);
  t.same(account, { id: 1, name: 'Acme', trunking: true, trunk_capacity: 3, cps: 5, recording_controls: true });
  t.equal((statSync(path.join(dir, 'master.key')).mode & 0o777), 0o600, 'master key generated once with 0600');

  const plain = await rb('account', 'create', '--name', 'Beta');
  t.match(plain.stdout, /created account 2 \(Beta\)/, 'human output without --json');
  const defaults = JSON.parse((await rb('--json', 'account', 'list')).stdout);
  t.same(defaults[1], { id: 2, name: 'Beta', trunking: false, trunk_capacity: 10, cps: 5, recording_controls: true }, 'defaults: no trunking, capacity 10, 5 calls/s');

  const upd = await rb('--json', 'account', 'update', '1', '--no-trunking', '--trunk-capacity', '7', '--cps', '2', '--no-recording-controls');
  t.same(JSON.parse(upd.stdout), { id: 1, name: 'Acme', trunking: false, trunk_capacity: 7, cps: 2, recording_controls: false });
  const on = await rb('--json', 'account', 'update', '1', '--trunking');
  t.equal(JSON.parse(on.stdout).trunking, true);

  const k1 = JSON.parse((await rb('--json', 'key', 'create', '--account', '1')).stdout);
  t.match(k1.key, /^sk_live_[A-Za-z0-9_-]{43,}$/, 'sk_live_ + 32 random bytes');
  const k2 = JSON.parse((await rb('--json', 'key', 'create', '--account', '1', '--name', 'billing server')).stdout);
  t.not(k1.key, k2.key);
  const list = JSON.parse((await rb('--json', 'key', 'list', '--account', '1')).stdout);
  t.equal(list.length, 2);
  t.same(Object.keys(list[0]).sort(), ['account', 'created_at', 'id', 'last4', 'last_used_at', 'name', 'prefix', 'revoked_at']);
  t.same(list.map((k: { name: string | null }) => k.name), ['billing server', null], 'named, or not');
  t.equal((await rb('key', 'create', '--account', '1', '--name', ' ')).code, 1, 'an empty name is refused');
  t.equal(list[0].last4, k2.key.slice(-4));
  t.equal(list[0].prefix, k2.key.slice(0, 12));
  const listText = (await rb('key', 'list', '--account', '1')).stdout;
  t.notOk(listText.includes(k1.key) || listText.includes(k2.key), 'the list never shows a whole key');

  const revoke = await rb('--json', 'key', 'revoke', String(k1.id));
  t.same(JSON.parse(revoke.stdout), { id: k1.id, revoked: true });
  const twice = await rb('key', 'revoke', String(k1.id));
  t.equal(twice.code, 1, 'revoking twice is an error');
  t.match(twice.stderr, /no active key/);

  const store = await openStore(dir, systemClock(), database);
  t.teardown(() => store.close());
  t.equal(await store.apiKeys.authenticate(k1.key), undefined, 'revoked key no longer authenticates');
  t.equal((await store.apiKeys.authenticate(k2.key))?.accountId, 1, 'the other key still does');
  t.notOk((await storedBytes(store, dir)).includes(Buffer.from(k2.key)), 'keys are not stored in clear');
});

t.test('CLI errors are clear and exit non-zero', async (t) => {
  const { dataDir: dir, database, rb } = await operatorCli(t);
  const noAccount = await rb('--json', 'key', 'create', '--account', '42');
  t.equal(noAccount.code, 1);
  t.same(JSON.parse(noAccount.stderr), { error: 'no account 42' });
  const badId = await rb('account', 'update', 'abc', '--trunking');
  t.equal(badId.code, 1);
  t.match(badId.stderr, /account id must be a whole number/);
  const badCap = await rb('account', 'create', '--name', 'x', '--trunk-capacity', 'many');
  t.equal(badCap.code, 1);
  const missing = await rb('account', 'create');
  t.not(missing.code, 0);
  t.match(missing.stderr, /--name/);
  const badKey = await cli(dir, { ...databaseEnv(database), RINGBASE_MASTER_KEY: 'short' })('account', 'list');
  t.equal(badKey.code, 78, 'a malformed master key stops the CLI');
  t.match(badKey.stderr, /RINGBASE_MASTER_KEY must hold a 32-byte key/);
});

t.test('account names follow the one name rule, on create and on rename', async (t) => {
  const { rb } = await operatorCli(t);
  const hostile: Array<[string, RegExp]> = [
    ['Acme\u202Eevil', /bidirectional control character \(U\+202E\)/],
    ['Acme\u001b[31m', /control character \(U\+001B\)/],
    ['Acme\nCorp', /must be on one line/],
    ['\u200B\u200B', /invisible/],
    ['..', /visible character|only dots/],
    ['x'.repeat(129), /at most 128 characters \(this one has 129\)/],
  ];
  for (const [name, why] of hostile) {
    const refused = await rb('account', 'create', '--name', name);
    t.equal(refused.code, 1, `refused: ${JSON.stringify(name).slice(0, 30)}`);
    t.match(refused.stderr, why);
  }
  t.same(JSON.parse((await rb('--json', 'account', 'list')).stdout), [], 'none was stored');
  const made = JSON.parse((await rb('--json', 'account', 'create', '--name', '  Zoë 株式会社 🚀  ')).stdout);
  t.equal(made.name, 'Zoë 株式会社 🚀', 'stored trimmed; any script and emoji');
  const rename = await rb('account', 'update', String(made.id), '--name', 'Acme\u202Eevil');
  t.equal(rename.code, 1);
  t.equal(JSON.parse((await rb('--json', 'account', 'list')).stdout)[0].name, 'Zoë 株式会社 🚀', 'a refused rename changes nothing');
});
