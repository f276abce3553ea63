import t from 'tap';
import { startHarness } from '../../helpers/harness.js';
import { FakeClock } from '../../../src/clock.js';
import { startPreviewHarness } from './helpers.js';

t.test('plain HTTP is refused on /v1 with the preview envelope; X-Forwarded-Proto only counts from trusted proxies', async (t) => {
  const h = await startHarness(t);
  const a = await h.account();
  for (const headers of [{}, { 'x-forwarded-proto': 'https' }] as Array<Record<string, string>>) {
    const res = await h.request('GET', '/v1/webhooks', { key: a.key, headers });
    t.equal(res.status, 400);
    t.equal(res.body.error.code, 'https_required');
    t.equal(res.body.error.type, 'invalid_request_error');
    t.equal(res.body.error.request_id, res.headers.get('x-request-id'));
  }
  const unknown = await h.request('GET', '/v1/nothing-here', { key: a.key });
  t.equal(unknown.body.error.code, 'https_required', 'unknown /v1 paths too');
  const live = await h.request('GET', '/api/partner/trunks', { key: a.key });
  t.equal(live.status, 200, 'the live API is unaffected');
});

t.test('trusted proxy: https accepted, the last forwarded proto counts', async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  t.equal((await h.v1('GET', '/v1/webhooks')).status, 200);
  const spoofed = await h.request('GET', '/v1/webhooks', { headers: { 'x-forwarded-proto': 'https, http' } });
  t.equal(spoofed.body.error.code, 'https_required', 'the value our proxy appended (http) wins');
  const missing = await h.v1('GET', '/v1/nothing-here');
  t.equal(missing.status, 404);
  t.equal(missing.body.error.code, 'route_not_found');
});

t.test('authentication errors in the envelope', async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  const none = await h.v1('GET', '/v1/webhooks', { key: null });
  t.equal(none.status, 401);
  t.match(none.body.error, { type: 'authentication_error', code: 'api_key_required', status: 401 });
  const bad = await h.v1('GET', '/v1/webhooks', { key: 'sk_live_nope' });
  t.match(bad.body.error, { code: 'api_key_invalid', status: 401 });
});

t.test('per-key rate limit: headers on every response, 429 with Retry-After, reset on the clock', async (t) => {
  const clock = new FakeClock(Date.UTC(2026, 0, 1, 0, 0, 0));
  const h = await startPreviewHarness(t, { clock, env: { RINGBASE_PREVIEW_RATE_LIMIT: '3', RINGBASE_PREVIEW_RATE_WINDOW: '10' } });
  const a = await h.org();
  const other = await h.org();
  const reset = String(Date.UTC(2026, 0, 1, 0, 0, 10) / 1000);
  for (let i = 0; i < 3; i++) {
    const res = await h.v1('GET', '/v1/webhooks', { key: a.key });
    t.equal(res.status, 200);
    t.equal(res.headers.get('x-ratelimit-limit'), '3');
    t.equal(res.headers.get('x-ratelimit-remaining'), String(2 - i));
    t.equal(res.headers.get('x-ratelimit-reset'), reset);
  }
  await clock.advance(4_000);
  const limited = await h.v1('GET', '/v1/webhooks', { key: a.key });
  t.equal(limited.status, 429);
  t.match(limited.body.error, { type: 'rate_limit_error', code: 'rate_limit_exceeded', status: 429 });
  t.equal(limited.headers.get('retry-after'), '6');
  t.equal(limited.headers.get('x-ratelimit-remaining'), '0');
  t.equal((await h.v1('GET', '/v1/webhooks', { key: other.key })).status, 200, 'limits are per key');
  await clock.advance(6_000);
  const again = await h.v1('GET', '/v1/webhooks', { key: a.key });
  t.equal(again.status, 200);
  t.equal(again.headers.get('x-ratelimit-remaining'), '2');
});

t.test('validation errors are 400 with code and param', async (t) => {
  const h = await startPreviewHarness(t);
  await h.org();
  const cases: Array<[string, unknown, string, string]> = [
    ['missing', { target_url: 'http://127.0.0.1/x' }, 'parameter_missing', 'event_type'],
    ['bad enum', { event_type: 'nope', target_url: 'http://127.0.0.1/x' }, 'parameter_invalid', 'event_type'],
    ['wrong type', { event_type: 'hangup', target_url: 'http://127.0.0.1/x', timeout_ms: '5' }, 'parameter_invalid', 'timeout_ms'],
    ['too large', { event_type: 'hangup', target_url: 'http://127.0.0.1/x', max_retries: 11 }, 'parameter_invalid', 'max_retries'],
    ['unknown', { event_type: 'hangup', target_url: 'http://127.0.0.1/x', timeout: 5 }, 'parameter_unknown', 'timeout'],
    ['not an object', [1], 'parameter_invalid', 'body'],
    ['header value type', { event_type: 'hangup', target_url: 'http://127.0.0.1/x', headers: { a: 1 } }, 'parameter_invalid', 'headers.a'],
  ];
  for (const [name, body, code, param] of cases) {
    const res = await h.v1('POST', '/v1/webhooks', { body });
    t.equal(res.status, 400, name);
    t.match(res.body.error, { type: 'invalid_request_error', code, param, status: 400 }, name);
    t.notMatch(res.body.error.message, /^The \w+ field/, `${name}: says parameter`);
  }
  const broken = await h.v1('POST', '/v1/webhooks', { body: '{"event_type":' });
  t.match(broken.body.error, { code: 'parameter_invalid', param: 'body', status: 400 });
  const media = await h.v1('POST', '/v1/webhooks', { body: 'x=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
  t.equal(media.status, 415);
  t.equal(media.body.error.code, 'unsupported_media_type');
});

t.test('cursor pagination: default 50, max 100, opaque cursor, newest first', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const types = ['web-form', 'call-start', 'hangup', 'no-agent', 'disposition'];
  for (const event_type of types) t.equal((await h.v1('POST', '/v1/webhooks', { body: { event_type, target_url: 'http://127.0.0.1/h' } })).status, 201);
  const all = await h.v1('GET', '/v1/webhooks');
  t.same(all.body.data.map((s: { event_type: string }) => s.event_type), [...types].reverse());
  t.same([all.body.has_more, all.body.next_cursor], [false, null]);
  const seen: string[] = [];
  let cursor: string | null = '';
  let pages = 0;
  while (cursor !== null) {
    const res = await h.v1('GET', `/v1/webhooks?page_size=2${cursor ? `&cursor=${cursor}` : ''}`);
    seen.push(...res.body.data.map((s: { event_type: string }) => s.event_type));
    t.equal(res.body.has_more, res.body.next_cursor !== null);
    cursor = res.body.next_cursor;
    pages++;
  }
  t.equal(pages, 3);
  t.same(seen, [...types].reverse());
  t.match((await h.v1('GET', '/v1/webhooks?page_size=101')).body.error, { code: 'parameter_invalid', param: 'page_size' });
  t.match((await h.v1('GET', '/v1/webhooks?page_size=0')).body.error, { code: 'parameter_invalid', param: 'page_size' });
  t.match((await h.v1('GET', '/v1/webhooks?cursor=garbage')).body.error, { code: 'parameter_invalid', param: 'cursor' });
  t.match((await h.v1('GET', '/v1/webhooks?limit=3')).body.error, { code: 'parameter_unknown', param: 'limit' });
  t.equal(a.id > 0, true);
});

t.test('OpenAPI documents every /v1 route with request and response schemas', async (t) => {
  const h = await startPreviewHarness(t);
  const doc = (await h.request('GET', '/openapi.json')).body;
  const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/v1'));
  t.same(paths.sort(), [
    '/v1/agents', '/v1/agents/{sid}', '/v1/agents/{sid}/monitor', '/v1/callbacks', '/v1/callbacks/{sid}',
    '/v1/conferences', '/v1/conferences/{sid}', '/v1/conferences/{sid}/participants', '/v1/conferences/{sid}/participants/{callSid}',
    '/v1/dispositions', '/v1/lead-campaigns', '/v1/lead-campaigns/{name}', '/v1/lead-injections', '/v1/leads/{sid}', '/v1/queues', '/v1/queues/{sid}', '/v1/queues/{sid}/members', '/v1/speech-settings', '/v1/voice-settings',
    '/v1/webhooks', '/v1/webhooks/{sid}', '/v1/webhooks/{sid}/deliveries',
  ]);
  t.ok(doc.paths['/v1/conferences/{sid}/participants'].post.requestBody, 'participant add documents its body');
  t.ok(doc.paths['/v1/conferences/{sid}/participants'].post.responses['201']);
  t.ok(doc.paths['/v1/conferences'].get.parameters.some((p: { name: string }) => p.name === 'cursor'), 'the conference list cursor is documented');
  t.ok(doc.paths['/v1/webhooks'].post.requestBody);
  t.ok(doc.paths['/v1/webhooks'].post.responses['201']);
  t.ok(doc.paths['/v1/webhooks'].post.responses['409']);
  t.ok(doc.paths['/v1/lead-injections'].post.responses['202']);
  t.ok(doc.paths['/v1/webhooks'].get.parameters.some((p: { name: string }) => p.name === 'cursor'));
});
