// Every error in the shape its root documents (docs/errors.md), framework errors included: a path that is not valid
// percent-encoding, an overlong path segment, an unsupported Content-Type, malformed JSON and an oversized body get
// the preview envelope on /v1, the live bodies on /api and an HTML page on the dashboard, never fastify's own JSON.
// Also: the ACD's /v1 writes take form-encoded bodies (docs/acd.md), read against the same schemas as JSON.
import t from 'tap';
import { rawRequest as raw } from '../helpers/raw-request.js';
import { startPreviewHarness } from './preview/helpers.js';
import { accountWithUser, DashboardClient, PASSWORD } from '../dashboard/client.js';

const OVERSIZED = JSON.stringify({ friendly_name: 'x'.repeat(70 * 1024) });
const LONG_SEGMENT = 'a'.repeat(4000);

/** The framework errors, each sent to a route of every root: [what, method, path under the root, headers, body, status, code]. */
const CASES = [
  ['bad percent-encoding', 'GET', '/%ff', {}, undefined, 400, 'malformed_path'],
  ['overlong path segment', 'GET', `/${LONG_SEGMENT}`, {}, undefined, 414, 'path_segment_too_long'],
  ['text/plain body', 'POST', '', { 'content-type': 'text/plain' }, 'hello', 415, 'unsupported_media_type'],
  ['unknown media type', 'POST', '', { 'content-type': 'application/xml' }, '<a/>', 415, 'unsupported_media_type'],
  ['malformed JSON', 'POST', '', { 'content-type': 'application/json' }, '{"friendly_name":', 0, ''],
  ['oversized body', 'POST', '', { 'content-type': 'application/json' }, OVERSIZED, 413, 'payload_too_large'],
] as const;

t.test('/v1 and /api: every framework error in the documented shape', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const auth = { authorization: `Bearer ${a.key}`, accept: 'application/json' };
  const roots = [
    { name: '/v1', base: '/v1/queues', headers: { ...auth, 'x-forwarded-proto': 'https' }, malformedJson: [400, 'parameter_invalid'] },
    { name: '/api', base: '/api/partner/trunks', headers: auth, malformedJson: [422, 'validation_failed'] },
  ] as const;
  for (const root of roots) {
    for (const [what, method, tail, headers, body, status, code] of CASES) {
      const res = await raw(h.url, method, root.base + tail, { ...root.headers, ...headers }, body);
      const [wantStatus, wantCode] = status === 0 ? root.malformedJson : [status, code];
      t.equal(res.status, wantStatus, `${root.name} ${what}: ${wantStatus}`);
      t.match(res.type, /^application\/json/, `${root.name} ${what}: JSON`);
      t.ok(res.requestId, `${root.name} ${what}: X-Request-Id`);
      t.notMatch(res.text, /FST_|statusCode|this type/, `${root.name} ${what}: no framework wording`);
      if (root.name === '/v1') {
        t.match(res.body, { error: { type: 'invalid_request_error', code: wantCode, message: String, status: wantStatus, request_id: res.requestId } }, `${what}: the preview envelope`);
      } else if (wantStatus === 422) {
        t.match(res.body, { message: String, errors: { body: [String] } }, `${what}: the live validation body`);
      } else {
        t.match(res.body, { error: String }, `${what}: the live error body`);
        t.same(Object.keys(res.body).filter((k) => k !== 'error' && k !== 'code'), [], `${what}: nothing else`);
      }
      if (code === 'unsupported_media_type') {
        const sent = (headers as Record<string, string>)['content-type'];
        t.match(res.text, `Content-Type ${sent} is not accepted here; send application/json`, `${root.name} ${what}: names the type sent`);
      }
    }
  }
  const form = await raw(h.url, 'POST', '/api/partner/trunks', { ...auth, 'content-type': 'application/x-www-form-urlencoded' }, 'label=x');
  t.equal(form.status, 415, 'the live API takes JSON only');
  t.match(form.body.error, 'Content-Type application/x-www-form-urlencoded is not accepted here; send application/json.');
  const v1NoForm = await raw(h.url, 'POST', '/v1/webhooks', { ...auth, 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded' }, 'event_type=hangup');
  t.match(v1NoForm.body.error, { status: 415, message: /send application\/json\.$/ }, 'a /v1 route without form bodies says JSON only');
});

t.test('dashboard: framework errors are HTML pages', async (t) => {
  const h = await startPreviewHarness(t);
  await accountWithUser(h, 'lead@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('lead@example.com', PASSWORD);
  const cookie = [...c.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
  for (const [what, method, tail, headers, body, status] of CASES) {
    const res = await raw(h.url, method, `/dashboard/agents${tail}`, { cookie, ...headers }, body);
    t.equal(res.status, status === 0 ? 400 : status, `${what}: status`);
    t.match(res.type, /^text\/html/, `${what}: a page`);
    t.match(res.text, /^<!doctype html>/i, `${what}: a whole page`);
    t.notMatch(res.text, /FST_|statusCode/, `${what}: no framework wording`);
  }
});

t.test('/v1/queues, /v1/agents, /v1/dispositions take form-encoded bodies, typed by their schemas', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const form = (path: string, body: string) => raw(h.url, 'POST', path, {
    authorization: `Bearer ${a.key}`, 'x-forwarded-proto': 'https', 'content-type': 'application/x-www-form-urlencoded',
  }, body);
  const queue = await form('/v1/queues', 'friendly_name=support&ring_timeout_seconds=15&wait_url=https%3A%2F%2Fmedia.example.com%2Fhold.mp3');
  t.equal(queue.status, 201);
  t.match(queue.body, { friendly_name: 'support', ring_timeout_seconds: 15, wait_url: 'https://media.example.com/hold.mp3' }, 'integers read as integers');
  await form('/v1/queues', 'friendly_name=sales');
  const badNumber = await form('/v1/queues', 'friendly_name=billing&max_no_answer=three');
  t.match(badNumber.body.error, { code: 'parameter_invalid', param: 'max_no_answer' }, 'a value that is no integer is named');
  const unknown = await form('/v1/queues', 'friendly_name=billing&colour=blue');
  t.match(unknown.body.error, { code: 'parameter_unknown', param: 'colour' });

  const seat = (await h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'wss' } })).body as { id: number };
  const one = await form('/v1/agents', `friendly_name=Sam&trunk_id=${seat.id}&queues=support`);
  t.equal(one.status, 201);
  t.same(one.body.queues, [queue.body.sid], 'a single queues value is a list of one');
  const two = await form('/v1/agents', `friendly_name=Ana&trunk_id=${seat.id}&queues=support&queues=sales`);
  t.equal(two.body.queues.length, 2, 'a repeated key is a list');
  const onBreak = await form(`/v1/agents/${one.body.sid}`, 'status=break&break_reason=lunch');
  t.match(onBreak.body, { status: 'break', break_reason: 'lunch' });
  const noReason = await form(`/v1/agents/${one.body.sid}`, 'break_reason=');
  t.equal(noReason.body.break_reason, null, 'an empty value clears a field that takes null');
  const silence = await form(`/v1/queues/${queue.body.sid}`, 'wait_url=');
  t.equal(silence.status, 200);
  t.equal(silence.body.wait_url, null, 'wait_url= goes back to silence');
  const noName = await form(`/v1/queues/${queue.body.sid}`, 'friendly_name=');
  t.match(noName.body.error, { code: 'parameter_invalid', param: 'friendly_name' }, 'a field that takes no null is not cleared by an empty value');

  const callSid = `CA${'1'.repeat(32)}`;
  await h.store.calls.create({ sid: callSid, accountId: a.id, direction: 'inbound', from: '+15550100001', to: '+15550100002', status: 'completed' });
  const disposed = await form('/v1/dispositions', `call_sid=${callSid}&disposition=sale&notes=two+seats`);
  t.equal(disposed.status, 201);
  t.match(disposed.body, { call_sid: callSid, disposition: 'sale', notes: 'two seats' });
  const proto = await form('/v1/dispositions', `call_sid=${callSid}&disposition=sale&__proto__=x&__proto__=y`);
  t.match(proto.body.error, { code: 'parameter_unknown', param: '__proto__' }, 'a __proto__ key is only an unknown field');

  const spec = (await h.request('GET', '/openapi.json')).body as { paths: Record<string, { post: { requestBody: { content: object } } }> };
  for (const path of ['/v1/queues', '/v1/agents', '/v1/agents/{sid}', '/v1/dispositions']) {
    t.same(Object.keys(spec.paths[path]!.post.requestBody.content), ['application/json', 'application/x-www-form-urlencoded'], `OpenAPI: ${path} takes both`);
  }
});
