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
  const account = h.account();
  const { setPasswordToken } = new UserService(h.store.users, h.clock).create(account.id, 'someone@example.com');
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
