import t from 'tap';
import { startHarness } from '../helpers/harness.js';

t.test('healthz, metrics, openapi, request ids and unknown routes', async (t) => {
  const h = await startHarness(t);
  await h.account();
  const health = await h.request('GET', '/healthz');
  t.equal(health.status, 200);
  t.same(health.body, { status: 'ok', node: h.store.instanceId, database: 'ok', engine: { kind: 'sandbox', ok: true, detail: 'sandbox engine running' } });
  t.match(health.headers.get('x-request-id'), /^req_/);

  await h.request('GET', '/api/partner/trunks');
  const metrics = await h.request('GET', '/metrics');
  t.equal(metrics.status, 200);
  t.match(metrics.text, /ringbase_http_requests_total\{method="GET",route="\/api\/partner\/trunks",status="200"\} 1/);
  t.match(metrics.text, /process_cpu_user_seconds_total/);

  const spec = await h.request('GET', '/openapi.json');
  t.equal(spec.status, 200);
  t.equal(spec.body.openapi, '3.1.0');
  t.same(Object.keys(spec.body.paths).filter((p) => p.startsWith('/api/partner')).sort(), [
    '/api/partner/trunks', '/api/partner/trunks/{id}', '/api/partner/trunks/{id}/connection',
  ]);
  t.same(Object.keys(spec.body.paths['/api/partner/trunks/{id}']).sort(), ['delete', 'get', 'patch', 'put']);
  t.ok(spec.body.paths['/api/partner/trunks'].post.requestBody, 'create body documented');
  t.same(Object.keys(spec.body.paths).filter((p) => !/^\/(api|v1)\//.test(p)), [], 'only the public API is documented (no dashboard pages, health or operator routes)');
  const ui = await fetch(`${h.url}/docs/`, { redirect: 'follow' });
  t.equal(ui.status, 200, 'docs UI served');
  t.match(await ui.text(), /swagger/i);

  const unknown = await h.request('GET', '/api/nothing-here');
  t.equal(unknown.status, 404, 'nothing at an unknown path');
  t.same(unknown.body, { error: 'Nothing at GET /api/nothing-here.' });
});
