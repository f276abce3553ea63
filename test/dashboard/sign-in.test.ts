import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { FakeClock } from '../../src/clock.js';
import { UserService } from '../../src/users/service.js';
import { hashPassword, verifyPassword } from '../../src/users/password.js';
import { DashboardClient, PASSWORD, accountWithUser, type Page } from './client.js';
import { fetchFrom } from '../helpers/fetch-from.js';
import { cli, cleanEnv, CLI, run } from '../helpers/spawn.js';
import { databaseEnv } from '../helpers/backends.js';

// Every sign-in checks a password with scrypt (N = 32768, on purpose slow) and the doubling-waits test signs in
// dozens of times: 73 s in all beside two engine tests, past tap's 120 s per file at load average 11 or more.
// The bound catches a hang, so it is set well past the loaded time.
t.setTimeout(10 * 60_000);

t.test('passwords: scrypt with a per-user salt', async (t) => {
  const one = await hashPassword(PASSWORD);
  const two = await hashPassword(PASSWORD);
  t.match(one, /^scrypt\$32768\$8\$1\$[A-Za-z0-9_-]{22}\$[A-Za-z0-9_-]{43}$/);
  t.not(one, two, 'salted');
  t.ok(await verifyPassword(PASSWORD, one));
  t.notOk(await verifyPassword(PASSWORD + 'x', one));
  t.notOk(await verifyPassword(PASSWORD, 'bcrypt$whatever'));
});

/** A refusal page as compared between emails: the CSRF token and the email typed are the only parts that may differ. */
function shape(page: Page, email: string) {
  const headers = [...page.headers].filter(([name]) => name !== 'date' && name !== 'x-request-id');
  return { status: page.status, headers, text: page.text.replaceAll(DashboardClient.csrfOf(page), 'CSRF').replaceAll(email, 'EMAIL') };
}

t.test('sign-in failures per (email, address): doubling waits, identical answers for known and unknown emails', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const h = await startHarness(t, { clock });
  // Same length, so even Content-Length must match.
  const known = 'known@example.com';
  const unknown = 'other@example.com';
  await accountWithUser(h, known);
  const ck = new DashboardClient(h.url);
  const cu = new DashboardClient(h.url);
  const both = async (password: string, label: string) => {
    const [k, u] = [await ck.signIn(known, password), await cu.signIn(unknown, password)];
    t.same(shape(k, known), shape(u, unknown), `${label}: byte-identical for a registered and an unknown email`);
    return k;
  };

  for (let i = 1; i <= 4; i++) {
    const res = await both('wrong password!', `failure ${i}`);
    t.equal(res.status, 401);
    t.match(res.text, /id="login-error">The email or password is incorrect.<\/p>/, 'no wait yet');
  }
  const waits: number[] = [];
  for (let failure = 5; failure <= 15; failure++) {
    const failed = await both('wrong password!', `failure ${failure}`);
    t.equal(failed.status, 401);
    const early = await both(PASSWORD, `right password during the wait after failure ${failure}`);
    t.equal(early.status, 429, 'refused unchecked, even the right password');
    const wait = Number(early.headers.get('retry-after'));
    waits.push(wait);
    t.match(failed.text, `The email or password is incorrect. Too many failed attempts from your address: try again in ${wait < 120 ? `${wait} seconds` : `${Math.ceil(wait / 60)} minutes`}.`);
    t.match(early.text, /Too many failed attempts from your address: try again in/);
    if (failure === 5) {
      const fromElsewhere = await new DashboardClient(h.url, fetchFrom('127.0.0.2')).signIn(known, PASSWORD);
      t.equal(fromElsewhere.status, 303, 'the user signs in from another address meanwhile: nobody can lock them out');
      const unknownElsewhere = await new DashboardClient(h.url, fetchFrom('127.0.0.2')).signIn(unknown, 'wrong password!');
      t.match(unknownElsewhere.text, /incorrect.<\/p>/, 'another address has its own count');
    }
    // Jumps, not advances: the harness's background jobs need not run every period of the wait.
    await clock.jump(wait * 1000 - 1000);
    t.equal((await both(PASSWORD, 'a second early')).status, 429);
    await clock.jump(1000);
  }
  t.same(waits, [2, 4, 8, 16, 32, 64, 128, 256, 512, 900, 900], 'the wait doubles after each failure past the fifth, up to 15 minutes');

  const ok = await ck.signIn(known.toUpperCase(), PASSWORD);
  t.equal(ok.status, 303, 'after the wait the right password works (emails match without case)');
  t.equal(ok.location, '/dashboard/numbers');
  const fresh = await new DashboardClient(h.url).signIn(known, 'wrong password!');
  t.match(fresh.text, /incorrect.<\/p>/, 'a success clears the count');

  await clock.jump(24 * 3600_000);
  t.match((await cu.signIn(unknown, 'wrong password!')).text, /incorrect.<\/p>/, 'a pair quiet for a day starts from zero');
});

t.test('sign-in takes as long for an unknown email as for a registered one', async (t) => {
  const h = await startHarness(t);
  await accountWithUser(h, 'known@example.com');
  const c = new DashboardClient(h.url);
  // The server runs in this process: its CPU time (all threads, scrypt's pool included) is the work a sign-in
  // costs, which is what must not depend on the email. Wall time is that work on an idle server, but on a loaded
  // machine it is mostly waiting for a core (medians of 302 against 645 ms were seen beside two engine tests).
  const timed = async (email: string) => {
    const page = await c.get('/dashboard/login');
    const [wallFrom, cpuFrom] = [performance.now(), process.cpuUsage()];
    const res = await c.post('/dashboard/login', { _csrf: DashboardClient.csrfOf(page), email, password: 'wrong password!' });
    const cpu = process.cpuUsage(cpuFrom);
    t.equal(res.status, 401);
    return { wall: performance.now() - wallFrom, cpu: (cpu.user + cpu.system) / 1000 };
  };
  const known: Array<{ wall: number; cpu: number }> = [];
  const unknown: Array<{ wall: number; cpu: number }> = [];
  // Four each (below the free failures), interleaved so machine load hits both alike.
  for (let i = 0; i < 4; i++) {
    known.push(await timed('known@example.com'));
    unknown.push(await timed(`nobody${i}@example.com`));
  }
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  const [knownCpu, unknownCpu] = [median(known.map((x) => x.cpu)), median(unknown.map((x) => x.cpu))];
  t.comment(`median sign-in failure: registered ${knownCpu.toFixed(1)} ms CPU (${median(known.map((x) => x.wall)).toFixed(1)} ms wall), unknown ${unknownCpu.toFixed(1)} ms CPU (${median(unknown.map((x) => x.wall)).toFixed(1)} ms wall)`);
  t.ok(knownCpu > 20, 'a failed sign-in runs scrypt');
  t.ok(Math.abs(knownCpu - unknownCpu) < Math.max(knownCpu, unknownCpu) / 2, 'both run the same scrypt work');
});

t.test('one-time set-password link: works once, expires after 24 hours', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 2, 1, 12));
  const h = await startHarness(t, { clock });
  const account = await h.account();
  const users = new UserService(h.store.users, clock);
  const { setPasswordToken } = await users.create(account.id, 'new@example.com');
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

  const later = await users.issueSetPasswordToken((await h.store.users.getByEmail('new@example.com'))!.id);
  await clock.jump(24 * 3600_000 + 1);
  t.equal((await c.get(`/dashboard/set-password?token=${later}`)).status, 410, 'expired after 24 hours');
  const stored = await h.store.sql.all<{ token_hash: string }>('SELECT token_hash FROM user_tokens');
  t.notOk(stored.some((r) => r.token_hash === later), 'tokens stored hashed');
});

t.test('operator CLI: user create prints a link; --password-stdin sets the password', async (t) => {
  const h = await startHarness(t);
  const account = await h.account();
  const rb = cli(h.dataDir, { RINGBASE_PUBLIC_URL: h.url, ...databaseEnv(h.config.database) });
  const made = await rb('--json', 'user', 'create', '--account', String(account.id), '--email', 'ops@example.com');
  t.equal(made.code, 0, made.stderr);
  const out = JSON.parse(made.stdout);
  t.match(out.set_password_url, new RegExp(`^${h.url}/dashboard/set-password\\?token=[A-Za-z0-9_-]{43}$`));
  const c = new DashboardClient(h.url);
  const path = out.set_password_url.slice(h.url.length);
  t.equal((await c.submit(path, '/dashboard/set-password', { token: new URL(out.set_password_url).searchParams.get('token')!, password: PASSWORD, confirm: PASSWORD })).status, 303);
  t.equal((await c.signIn('ops@example.com', PASSWORD)).status, 303, 'signed in with the password set through the link');

  const piped = await run(CLI, ['user', 'create', '--account', String(account.id), '--email', 'piped@example.com', '--password-stdin'],
    { env: cleanEnv({ RINGBASE_DATA_DIR: h.dataDir, ...databaseEnv(h.config.database) }), input: `${PASSWORD}\n` });
  t.equal(piped.code, 0, piped.stderr);
  t.equal((await new DashboardClient(h.url).signIn('piped@example.com', PASSWORD)).status, 303);
  const dup = await rb('user', 'create', '--account', String(account.id), '--email', 'PIPED@example.com');
  t.equal(dup.code, 1);
  t.match(dup.stderr, /already exists/);
  const noAccount = await rb('user', 'create', '--account', '999', '--email', 'x@example.com');
  t.match(noAccount.stderr, /no account 999/);
});
