// Wrong operator tokens are throttled per client address like API keys (one count for both): 20 failures, then
// 429 with Retry-After, while the right token that already worked from the address keeps working.
import t from 'tap';
import { startHarness } from '../../helpers/harness.js';
import { operatorToken } from '../../../src/operator-token.js';

t.test('wrong operator tokens: 20 × 401, then 429; the operator keeps working; API keys share the count', async (t) => {
  const h = await startHarness(t);
  const a = await h.account();
  const token = operatorToken(h.dataDir, false)!;
  const operator = (bearer: string) => h.request('GET', '/operator/media-servers', { key: null, headers: { authorization: `Bearer ${bearer}` } });
  t.equal((await operator(token)).status, 409, 'the right token passes (the sandbox has no media servers: 409)');
  const statuses: number[] = [];
  for (let i = 0; i < 25; i++) statuses.push((await operator(`op_${'x'.repeat(40)}${i}`)).status);
  t.same(statuses, [...Array(20).fill(401), ...Array(5).fill(429)]);
  const throttled = await operator('op_wrong');
  t.ok(Number(throttled.headers.get('retry-after')) >= 1, 'Retry-After says how long');
  t.equal((await operator(token)).status, 409, 'the token that worked from this address still works');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: 'sk_live_wrong' })).status, 429, 'the same count throttles wrong API keys');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: a.key })).status, 429, 'and keys not used from here lately');
});
