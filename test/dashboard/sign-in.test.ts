import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { FakeClock } from '../../src/clock.js';
import { UserService } from '../../src/users/service.js';
import { hashPassword, verifyPassword } from '../../src/users/password.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';
import { cli, cleanEnv, CLI, run } from '../helpers/spawn.js';

t.test('passwords: scrypt with a per-user salt', async (t) => {
  const one = await hashPassword(PASSWORD);
  const two = await hashPassword(PASSWORD);
  t.match(one, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(one, two, 'salted');
  t.ok(await verifyPassword(PASSWORD, one));
  t.notOk(await verifyPassword(PASSWORD + 'x', one));
  t.notOk(await verifyPassword(PASSWORD, 'bcrypt$whatever'));
});

t.test('lockout after 5 failures for 15 minutes, on the injected clock', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const h = await startHarness(t, { clock });
  await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  for (let i = 1; i <= 4; i++) {
    const res = await c.signIn('a@example.com', 'wrong password!');
    t.equal(res.status, 401, `failure ${i}`);
    t.match(res.text, /email or password is incorrect/);
  }
  const fifth = await c.signIn('a@example.com', 'wrong password!');
  t.match(fifth.text, /locked until 2026-03-01 12:15:00 UTC/, 'the fifth failure locks');
  const right = await c.signIn('a@example.com', PASSWORD);
  t.equal(right.status, 401, 'even the right password is refused while locked');
  t.match(right.text, /Too many failed attempts/);
  await clock.advance(14 * 60_000);
  t.equal((await c.signIn('a@example.com', PASSWORD)).status, 401, 'still locked after 14 minutes');
  await clock.advance(60_000);
  const ok = await c.signIn('a@example.com', PASSWORD);
  t.equal(ok.status, 303, 'open again after 15 minutes');
  t.equal(ok.location, '/dashboard/numbers');
  const unknown = await new DashboardClient(h.url).signIn('nobody@example.com', PASSWORD);
  t.equal(unknown.status, 401);
  t.match(unknown.text, /email or password is incorrect/, 'unknown emails get the same answer');
});

t.test('one-time set-password link: works once, expires after 24 hours', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const h = await startHarness(t, { clock });
  const account = h.account();
  const users = new UserService(h.store.users, clock);
  const { setPasswordToken } = users.create(account.id, 'new@example.com');
  const c = new DashboardClient(h.url);
  const link = `/dashboard/set-password?token=${setPasswordToken}`;
  t.equal((await c.get(link)).status, 200);
  const short = await c.submit(link, '/dashboard/set-password', { token: setPasswordToken, password: 'short', confirm: 'short' });
  t.equal(short.status, 422);
  t.match(short.text, /id="e-password">Use at least 10 characters/, 'the message sits at the password field');
  const mismatch = await c.submit(link, '/dashboard/set-password', { token: setPasswordToken, password: PASSWORD, confirm: 'something else' });
  t.match(mismatch.text, /id="e-confirm">The two passwords do not match/);
  const set = await c.submit(link, '/dashboard/set-password', { token: setPasswordToken, password: PASSWORD, confirm: PASSWORD });
  t.equal(set.status, 303);
  t.equal(set.location, '/dashboard/login?done=password-set');
  t.equal((await c.get(link)).status, 410, 'used once');
  t.equal((await c.signIn('new@example.com', PASSWORD)).status, 303);

  const later = users.issueSetPasswordToken(h.store.users.getByEmail('new@example.com')!.id);
  await clock.advance(24 * 3600_000 + 1);
  t.equal((await c.get(`/dashboard/set-password?token=${later}`)).status, 410, 'expired after 24 hours');
  const stored = h.store.db.prepare('SELECT token_hash FROM user_tokens').all() as Array<{ token_hash: string }>;
  t.notOk(stored.some((r) => r.token_hash === later), 'tokens stored hashed');
});

t.test('operator CLI: user create prints a link; --password-stdin sets the password', async (t) => {
  const h = await startHarness(t);
  const account = h.account();
  const rb = cli(h.dataDir, { RINGBASE_PUBLIC_URL: h.url });
  const made = await rb('--json', 'user', 'create', '--account', String(account.id), '--email', 'ops@example.com');
  t.equal(made.code, 0, made.stderr);
  const out = JSON.parse(made.stdout);
  t.match(out.set_password_url, new RegExp(`^${h.url}/dashboard/set-password\\?token=[A-Za-z0-9_-]{43}$`));
  const c = new DashboardClient(h.url);
  const path = out.set_password_url.slice(h.url.length);
  t.equal((await c.submit(path, '/dashboard/set-password', { token: new URL(out.set_password_url).searchParams.get('token')!, password: PASSWORD, confirm: PASSWORD })).status, 303);
  t.equal((await c.signIn('ops@example.com', PASSWORD)).status, 303, 'signed in with the password set through the link');

  const piped = await run(CLI, ['user', 'create', '--account', String(account.id), '--email', 'piped@example.com', '--password-stdin'],
    { env: cleanEnv({ RINGBASE_DATA_DIR: h.dataDir }), input: `${PASSWORD}\n` });
  t.equal(piped.code, 0, piped.stderr);
  t.equal((await new DashboardClient(h.url).signIn('piped@example.com', PASSWORD)).status, 303);
  const dup = await rb('user', 'create', '--account', String(account.id), '--email', 'PIPED@example.com');
  t.equal(dup.code, 1);
  t.match(dup.stderr, /already exists/);
  const noAccount = await rb('user', 'create', '--account', '999', '--email', 'x@example.com');
  t.match(noAccount.stderr, /no account 999/);
});
