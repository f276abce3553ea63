import t from 'tap';
import net from 'node:net';
import { FakeClock } from '../../src/clock.js';
import { AuthThrottle } from '../../src/http/auth-throttle.js';
import { addressBucket } from '../../src/net/address-bucket.js';
import { startHarness } from '../helpers/harness.js';
import { fetchFrom } from '../helpers/fetch-from.js';
import { startPreviewHarness } from './preview/helpers.js';

const WRONG = `sk_live_${'A'.repeat(43)}`;

/** Sends exactly these request bytes (fetch would trim the header value) and returns status and body. */
function rawGet(url: string, path: string, authorization: string, extra = ''): Promise<{ status: number; body: any }> {
  const { hostname, port } = new URL(url);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () => {
      socket.write(`GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\nAuthorization: ${authorization}\r\n${extra}Connection: close\r\n\r\n`);
    });
    let text = '';
    socket.on('data', (d) => { text += d.toString(); });
    socket.on('error', reject);
    socket.on('end', () => {
      const [head = '', body = ''] = text.split('\r\n\r\n');
      resolve({ status: Number(head.split(' ')[1]), body: JSON.parse(body) });
    });
  });
}

t.test('Bearer with no key is "missing" in both roots', async (t) => {
  const h = await startPreviewHarness(t);
  for (const header of ['Bearer', 'Bearer ', 'Bearer    ', 'bearer\t']) {
    const live = await rawGet(h.url, '/api/partner/trunks', header);
    t.equal(live.status, 401, JSON.stringify(header));
    t.match(live.body.error, /API key is required.*Authorization: Bearer/, `${JSON.stringify(header)}: live says missing`);
    const preview = await rawGet(h.url, '/v1/webhooks', header, 'X-Forwarded-Proto: https\r\n');
    t.equal(preview.status, 401);
    t.match(preview.body.error, { type: 'authentication_error', code: 'api_key_required', status: 401 }, `${JSON.stringify(header)}: envelope`);
  }
  t.equal((await rawGet(h.url, '/api/partner/trunks', 'Bearer x y')).body.error, 'The API key is invalid or expired.', 'two words is a wrong key, not a missing one');
});

t.test('failed keys throttled per address: 429 with Retry-After in both roots, known keys still work, window on the clock', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1));
  // Trusts 127.0.0.1 as its proxy, so /v1 counts as HTTPS and X-Forwarded-For names other clients.
  const h = await startPreviewHarness(t, { clock });
  const known = await h.org();
  const unseen = await h.org();
  t.equal((await h.request('GET', '/api/partner/trunks', { key: known.key })).status, 200, 'a key in use from this address');

  for (let i = 1; i <= 20; i++) {
    const res = await h.request('GET', '/api/partner/trunks', { key: WRONG });
    if (res.status !== 401) t.fail(`failure ${i} answered ${res.status}`);
  }
  await clock.advance(15_000);
  const live = await h.request('GET', '/api/partner/trunks', { key: WRONG });
  t.equal(live.status, 429, 'the 21st failure in the window is throttled');
  t.same(live.body, { error: 'Too many requests with an invalid API key from your address; retry after 45 s.', code: 'too_many_auth_failures' });
  t.equal(live.headers.get('retry-after'), '45', 'until the window that opened at the first failure ends');
  const preview = await h.v1('GET', '/v1/webhooks', { key: 'sk_live_nope' });
  t.equal(preview.status, 429, 'the same address on the preview root');
  t.match(preview.body.error, { type: 'rate_limit_error', code: 'too_many_auth_failures', status: 429, request_id: preview.headers.get('x-request-id') });
  t.equal(preview.headers.get('retry-after'), '45');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: 'Basic abc' })).status, 429, 'a malformed header is a failure too');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: null })).status, 401, 'no key at all is not a guess: still 401');

  t.equal((await h.request('GET', '/api/partner/trunks', { key: known.key })).status, 200, 'a key that worked from here still works (live)');
  t.equal((await h.v1('GET', '/v1/webhooks', { key: known.key })).status, 200, 'and on /v1');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: unseen.key })).status, 429, 'a valid key never seen from here is not tried: no leaked-key testing');
  const elsewhere = { 'x-forwarded-for': '203.0.113.9' };
  t.equal((await h.request('GET', '/api/partner/trunks', { key: WRONG, headers: elsewhere })).status, 401, 'another client behind the proxy is not throttled');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: unseen.key, headers: elsewhere })).status, 200);

  await clock.advance(44_000);
  t.equal((await h.request('GET', '/api/partner/trunks', { key: WRONG })).headers.get('retry-after'), '1');
  await clock.advance(1_000);
  t.equal((await h.request('GET', '/api/partner/trunks', { key: WRONG })).status, 401, 'the window is over: a wrong key is a plain 401 again');
  t.equal((await h.request('GET', '/api/partner/trunks', { key: unseen.key })).status, 200, 'and any valid key works');
});

t.test('the source is the TCP peer: X-Forwarded-For from an untrusted peer changes nothing; 127.0.0.2 is another source', async (t) => {
  const h = await startHarness(t, { fakeClock: true, env: { RINGBASE_AUTH_FAIL_LIMIT: '3', RINGBASE_AUTH_FAIL_WINDOW_S: '10' } });
  const a = await h.account();
  for (let i = 1; i <= 3; i++) {
    const res = await h.request('GET', '/api/partner/trunks', { key: WRONG, headers: { 'x-forwarded-for': `198.51.100.${i}` } });
    t.equal(res.status, 401, `failure ${i}`);
  }
  const spoofed = await h.request('GET', '/api/partner/trunks', { key: WRONG, headers: { 'x-forwarded-for': '198.51.100.77' } });
  t.equal(spoofed.status, 429, 'a forged X-Forwarded-For does not make a new source');
  t.equal(spoofed.headers.get('retry-after'), '10');

  const from2 = (key: string) => fetchFrom('127.0.0.2')(`${h.url}/api/partner/trunks`, { headers: { authorization: `Bearer ${key}` } });
  t.equal((await from2(WRONG)).status, 401, 'a client at 127.0.0.2 has its own count');
  t.equal((await from2(a.key)).status, 200);
});

t.test('throttle state: bounded, oldest forgotten first, IPv6 counted per /64', async (t) => {
  const clock = new FakeClock();
  const throttle = new AuthThrottle(clock, { limit: 1, windowMs: 60_000, maxEntries: 3 });
  for (const source of ['a', 'b', 'c', 'd']) throttle.recordFailure(source);
  t.equal(throttle.retryAfter('a'), 0, 'the oldest source was forgotten to make room');
  t.same(['b', 'c', 'd'].map((s) => throttle.retryAfter(s)), [60, 60, 60]);
  await clock.advance(60_000);
  t.equal(throttle.retryAfter('d'), 0, 'windows end on the clock');

  for (const id of [1, 2, 3, 4]) throttle.recordSuccess('a', id);
  t.same([1, 2, 3, 4].map((id) => throttle.knows('a', id)), [false, true, true, true], 'known keys are bounded the same way');
  await clock.advance(24 * 3600_000);
  t.notOk(throttle.knows('a', 4), 'and forgotten after a day');

  t.equal(addressBucket('::ffff:127.0.0.1'), '127.0.0.1', 'IPv4-mapped is the IPv4 address');
  t.equal(addressBucket('2001:db8:1:2:aaaa::1'), addressBucket('2001:db8:1:2:ffff::9'), 'one /64 is one source');
  t.not(addressBucket('2001:db8:1:2::1'), addressBucket('2001:db8:1:3::1'));
  t.equal(addressBucket('2001:db8:1:2::1'), '2001:db8:1:2::/64');
});
