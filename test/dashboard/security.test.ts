import t from 'tap';
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { Agent } from 'undici';
import { generate } from 'selfsigned';
import { startHarness, tempDir, type Harness } from '../helpers/harness.js';
import { encodeWav } from '../../src/engine/sandbox/index.js';
import { DEFAULT_NUMBER_SETTINGS } from '../../src/numbers/settings.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';

/** Account B's number, call, recording, trunk and key, created straight in the store. */
async function foreignResources(h: Harness, accountId: number) {
  const number = (await h.store.numbers.add('+15550009999', accountId, DEFAULT_NUMBER_SETTINGS))!;
  const sid = 'CA' + 'b'.repeat(32);
  await h.store.calls.create({ sid, accountId, direction: 'inbound', from: '+15557770001', to: number.e164, status: 'completed', numberId: number.id });
  const dir = path.join(h.dataDir, 'recordings', String(accountId));
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'REb.wav');
  writeFileSync(file, encodeWav({ sampleRate: 8000, channels: [new Float32Array(800)] }));
  const rec = await h.store.recordings.create({ sid: 'RE' + 'b'.repeat(32), accountId, callSid: sid, source: 'call', tracks: 'both', channels: 1, file, callbackUrl: null });
  const trunk = await h.app.trunks.create((await h.store.accounts.get(accountId))!, 'wss', {});
  const keyId = (await h.store.apiKeys.listForAccount(accountId))[0]!.id;
  return { number, callSid: sid, recSid: rec.sid, trunkId: trunk.id, keyId };
}

t.test('another account\'s numbers, calls, recordings, trunks and keys are unreachable by URL', async (t) => {
  const h = await startHarness(t);
  await accountWithUser(h, 'a@example.com');
  const b = await accountWithUser(h, 'b@example.com');
  const foreign = await foreignResources(h, b.id);
  const c = new DashboardClient(h.url);
  t.equal((await c.signIn('a@example.com', PASSWORD)).status, 303);
  const csrf = DashboardClient.csrfOf(await c.get('/dashboard/numbers'));
  const enc = encodeURIComponent(foreign.number.e164);

  for (const p of [`/dashboard/numbers/${enc}`, `/dashboard/calls/${foreign.callSid}`, `/dashboard/recordings/${foreign.recSid}.wav`,
    `/dashboard/trunks/${foreign.trunkId}`, `/dashboard/trunks/${foreign.trunkId}/edit`]) {
    const res = await c.get(p);
    t.equal(res.status, 404, `GET ${p}`);
    t.notMatch(res.text, /RIFF|tk-[a-z0-9]{12}|\+15557770001/, 'nothing of it in the body');
  }
  for (const [p, form] of [[`/dashboard/numbers/${enc}`, { webhook_url: 'https://evil.example/x' }], [`/dashboard/numbers/${enc}/release`, {}],
    [`/dashboard/trunks/${foreign.trunkId}/reveal`, {}], [`/dashboard/trunks/${foreign.trunkId}/revoke`, {}],
    [`/dashboard/keys/${foreign.keyId}/delete`, {}]] as const) {
    t.equal((await c.post(p, { _csrf: csrf, ...form })).status, 404, `POST ${p}`);
  }
  t.equal((await c.post('/dashboard/numbers/claim', { _csrf: csrf, number: foreign.number.e164 })).status, 409, 'a claimed number cannot be claimed');
  t.equal((await h.store.numbers.getByE164(foreign.number.e164))!.accountId, b.id, 'B keeps its number');
  t.equal((await h.store.numbers.getByE164(foreign.number.e164))!.settings.webhook_url, null, 'its settings untouched');
  t.equal((await h.store.trunks.getById(foreign.trunkId))!.status === 'revoked', false, 'its trunk not revoked');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: b.key })).status, 200, "B's key still works");
  const list = await c.get('/dashboard/calls');
  t.notMatch(list.text, foreign.callSid, "B's call is not in A's log");
});

t.test('forms without a valid CSRF token are refused', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  await h.store.numbers.add('+15550001000', a.id, DEFAULT_NUMBER_SETTINGS);
  const c = new DashboardClient(h.url);
  const noToken = await c.post('/dashboard/login', { email: 'a@example.com', password: PASSWORD });
  t.equal(noToken.status, 403, 'sign-in without the pre-session token');
  t.equal(c.cookies.has('rb_session'), false);
  await c.signIn('a@example.com', PASSWORD);
  t.ok(c.cookies.has('rb_session'), 'signed in with the token');
  const before = (await h.store.apiKeys.listForAccount(a.id)).length;
  for (const [p, form] of [
    ['/dashboard/keys', {}],
    ['/dashboard/numbers/%2B15550001000', { webhook_url: 'https://x.example/' }],
    ['/dashboard/settings/signing-secret/rotate', {}],
    ['/dashboard/settings/signing-secret/reveal', {}],
    ['/dashboard/trunks', { transport: 'wss' }],
    ['/dashboard/test-call', { to: '+15550001000', from: '+15557770001' }],
    ['/dashboard/logout', {}],
  ] as const) {
    const missing = await c.post(p, form);
    t.equal(missing.status, 403, `${p} without a token`);
    t.match(missing.text, /did not come from this site/);
    t.equal((await c.post(p, { ...form, _csrf: 'x'.repeat(32) })).status, 403, `${p} with a wrong token`);
  }
  t.equal((await h.store.apiKeys.listForAccount(a.id)).length, before, 'no key created');
  t.equal((await h.store.numbers.getByE164('+15550001000'))!.settings.webhook_url, null, 'no setting changed');
  t.equal((await c.get('/dashboard/numbers')).status, 200, 'still signed in (logout was refused too)');
  const other = new DashboardClient(h.url);
  await accountWithUser(h, 'b@example.com');
  await other.signIn('b@example.com', PASSWORD);
  const foreignToken = DashboardClient.csrfOf(await other.get('/dashboard/keys'));
  t.equal((await c.post('/dashboard/keys', { _csrf: foreignToken })).status, 403, "another session's token is not this session's");
});

t.test('session cookies: HttpOnly, SameSite=Lax, path /dashboard; not Secure over plain HTTP', async (t) => {
  const h = await startHarness(t);
  await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  const pre = await c.get('/dashboard/login');
  t.match(pre.setCookies.join('\n'), /rb_csrf=[^;]+;.*HttpOnly/i);
  const res = await c.signIn('a@example.com', PASSWORD);
  const cookie = res.setCookies.find((x) => x.startsWith('rb_session='))!;
  t.ok(cookie, 'session cookie set');
  t.match(cookie, /HttpOnly/i);
  t.match(cookie, /SameSite=Lax/i);
  t.match(cookie, /Path=\/dashboard/);
  t.notMatch(cookie, /Secure/i, 'plain HTTP development server');
  const token = cookie.split(';')[0]!.split('=')[1]!;
  const stored = await h.store.sql.all<{ token_hash: string }>('SELECT token_hash FROM user_sessions');
  t.equal(stored.length, 1);
  t.not(stored[0]!.token_hash, token, 'the session is stored hashed');
  t.equal((await c.submit('/dashboard/numbers', '/dashboard/logout')).status, 303);
  t.equal((await h.store.sql.one<{ n: number }>('SELECT count(*) AS n FROM user_sessions'))!.n, 0, 'logout deletes the session');
  const again = new DashboardClient(h.url);
  again.cookies.set('rb_session', token);
  t.equal((await again.get('/dashboard/numbers')).status, 303, 'the old cookie no longer works');
});

t.test('session cookies are Secure when served over HTTPS', async (t) => {
  const dir = tempDir(t);
  const pems = await generate([{ name: 'commonName', value: 'localhost' }], { keySize: 2048, algorithm: 'sha256' });
  writeFileSync(path.join(dir, 'c.pem'), pems.cert);
  writeFileSync(path.join(dir, 'k.pem'), pems.private);
  const h = await startHarness(t, { env: { RINGBASE_TLS_CERT: path.join(dir, 'c.pem'), RINGBASE_TLS_KEY: path.join(dir, 'k.pem') } });
  await accountWithUser(h, 'a@example.com');
  const dispatcher = new Agent({ connect: { rejectUnauthorized: false } });
  t.teardown(() => dispatcher.close());
  const insecureFetch = ((url: string, init: RequestInit) => fetch(url, { ...init, dispatcher } as RequestInit)) as typeof fetch;
  const c = new DashboardClient(h.url.replace('http://', 'https://'), insecureFetch);
  const pre = await c.get('/dashboard/login');
  t.match(pre.setCookies.join('\n'), /rb_csrf=.*Secure/i);
  const res = await c.signIn('a@example.com', PASSWORD);
  const cookie = res.setCookies.find((x) => x.startsWith('rb_session='))!;
  t.match(cookie, /; Secure/i);
  t.match(cookie, /HttpOnly/i);
  t.match(cookie, /SameSite=Lax/i);
});

t.test('pages need a session; security headers', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const c = new DashboardClient(h.url);
  for (const p of ['/dashboard/numbers', '/dashboard/calls', '/dashboard/keys', '/dashboard/trunks', '/dashboard/settings', '/dashboard/test-call',
    `/dashboard/recordings/RE${'a'.repeat(32)}.wav`]) {
    const res = await c.get(p);
    t.equal(res.status, 303, p);
    t.match(res.location, /^\/dashboard\/login\?next=/);
  }
  t.equal((await c.post('/dashboard/keys', {})).status, 303, 'a POST without a session goes to sign-in, does nothing');
  const login = await c.get('/dashboard/login?next=https://evil.example/');
  t.match(login.headers.get('content-security-policy'), /frame-ancestors 'none'/);
  t.equal(login.headers.get('cache-control'), 'no-store');
  t.equal(login.headers.get('x-frame-options'), 'DENY');
  t.equal((await h.request('POST', '/api/partner/trunks', { body: 'transport=wss', headers: { 'content-type': 'application/x-www-form-urlencoded' } })).status, 415,
    'the API still refuses form bodies (formbody is scoped to the dashboard)');
});

t.test('user-provided text is escaped on every page it appears', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  const evil = '"><script>alert(1)</script>';
  await h.store.numbers.add('+15550001000', a.id, { ...DEFAULT_NUMBER_SETTINGS, client_ref: evil, webhook_url: `https://x.example/?q=${evil}` });
  await h.app.trunks.create((await h.store.accounts.get(a.id))!, 'wss', { label: evil });
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  for (const p of ['/dashboard/numbers', '/dashboard/numbers/%2B15550001000', '/dashboard/trunks', '/dashboard/trunks/1']) {
    const page = await c.get(p);
    t.notMatch(page.text, '<script>alert(1)', `${p}: not markup`);
    t.match(page.text, '&lt;script&gt;alert(1)', `${p}: shown as text`);
  }
});
