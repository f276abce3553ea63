import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { UserService } from '../../src/users/service.js';
import { redactUrl } from '../../src/log-redaction.js';

t.test('redactUrl hides sensitive query values and keeps the rest as sent', async (t) => {
  const cases: Array<[string, string]> = [
    ['/dashboard/set-password?token=abc123', '/dashboard/set-password?token=[redacted]'],
    ['/x?a=1&api_key=k&b=2', '/x?a=1&api_key=[redacted]&b=2'],
    ['/x?Client_Secret=s&password=p&oauth_signature=g&code=c&X-Api-Key=z', '/x?Client_Secret=[redacted]&password=[redacted]&oauth_signature=[redacted]&code=[redacted]&X-Api-Key=[redacted]'],
    ['/x?access%5Ftoken=t#frag', '/x?access%5Ftoken=[redacted]#frag'],
    ['/x?page_size=10&cursor=abc', '/x?page_size=10&cursor=abc'],
    ['/x?token', '/x?token'],
    ['/plain/path', '/plain/path'],
    ['/x?token=%E0%A4%A', '/x?token=[redacted]'],
  ];
  for (const [url, want] of cases) t.equal(redactUrl(url), want, url);
});

t.test('a set-password link never reaches the request log with its token', async (t) => {
  const h = await startHarness(t);
  const account = await h.account();
  const { setPasswordToken } = await new UserService(h.store.users, h.clock).create(account.id, 'someone@example.com');
  const page = await h.request('GET', `/dashboard/set-password?token=${setPasswordToken}`, { headers: { accept: 'text/html' } });
  t.equal(page.status, 200, 'the link works');
  const apiKeyInQuery = await h.request('GET', `/api/partner/trunks?api_key=${account.key}`);
  t.equal(apiKeyInQuery.status, 200);
  const logs = h.logs.join('');
  t.match(logs, /"url":"\/dashboard\/set-password\?token=\[redacted\]"/, 'the request is logged, its token redacted');
  t.match(logs, /"url":"\/api\/partner\/trunks\?api_key=\[redacted\]"/);
  t.notOk(logs.includes(setPasswordToken), 'the token appears in no log line');
  t.notOk(logs.includes(account.key), 'nor the API key');
});

t.test('redactUrl judges values too: a credential nested in another parameter, or shaped like one of ours, is hidden', async (t) => {
  const token = 'Qm9vX3Rva2VuLXRoYXQtaXMtbG9uZy1lbm91Z2gtdG8taGlkZQ';
  const cases: Array<[string, string]> = [
    [`/dashboard/sign-in?next=/dashboard/set-password?token=${token}`, '/dashboard/sign-in?next=[redacted]'],
    [`/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/set-password?token=${token}`)}`, '/dashboard/sign-in?next=[redacted]'],
    [`/x?next=${encodeURIComponent(`/a?b=1&api_key=zz`)}&page=2`, '/x?next=[redacted]&page=2'],
    [`/x?q=${token}`, '/x?q=[redacted]'],
    ['/x?q=sk_live_abc', '/x?q=[redacted]'],
    ['/x?state=op_abcdefghijklmnopqrstu', '/x?state=[redacted]'],
    [`/v1/calls?call_sid=CA${'0123456789abcdef'.repeat(2)}&page_size=10`, `/v1/calls?call_sid=CA${'0123456789abcdef'.repeat(2)}&page_size=10`],
    ['/x?next=/dashboard/calls?page=2', '/x?next=/dashboard/calls?page=2'],
    ['/x?cursor=cur_MTIz&status=completed', '/x?cursor=cur_MTIz&status=completed'],
  ];
  for (const [url, want] of cases) t.equal(redactUrl(url), want, url);
});

t.test('a set-password link nested in another page\'s next= never reaches the log', async (t) => {
  const h = await startHarness(t);
  const account = await h.account();
  const { setPasswordToken } = await new UserService(h.store.users, h.clock).create(account.id, 'nested@example.com');
  await h.request('GET', `/dashboard/sign-in?next=/dashboard/set-password?token=${setPasswordToken}`, { headers: { accept: 'text/html' } });
  await h.request('GET', `/dashboard/sign-in?next=${encodeURIComponent(`/dashboard/set-password?token=${setPasswordToken}`)}`, { headers: { accept: 'text/html' } });
  const logs = h.logs.join('');
  t.match(logs, /"url":"\/dashboard\/sign-in\?next=\[redacted\]"/, 'the request is logged');
  t.notOk(logs.includes(setPasswordToken), 'the token appears in no log line');
});
