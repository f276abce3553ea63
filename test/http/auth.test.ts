import t from 'tap';
import { startHarness } from '../helpers/harness.js';

t.test('API key authentication', async (t) => {
  const h = await startHarness(t);
  const a = await h.account();
  const missing = await h.request('GET', '/api/partner/trunks', { key: null });
  t.equal(missing.status, 401);
  t.match(missing.body.error, /required/);
  t.match(missing.body.error, /Authorization: Bearer/, 'says how to pass it');
  const blank = await h.request('GET', '/api/partner/trunks', { key: null, headers: { authorization: '  ' } });
  t.equal(blank.status, 401);
  t.match(blank.body.error, /required/);

  const invalidCases: Record<string, string> = {
    'wrong key': 'Bearer sk_live_' + 'A'.repeat(43),
    'not a live key': 'Bearer pk_test_123',
    'basic scheme': `Basic ${Buffer.from(a.key + ':').toString('base64')}`,
    'key without scheme': a.key,
    'key with trailing garbage': `Bearer ${a.key} extra`,
  };
  for (const [name, header] of Object.entries(invalidCases)) {
    const res = await h.request('GET', '/api/partner/trunks', { key: null, headers: { authorization: header } });
    t.equal(res.status, 401, name);
    t.same(res.body, { error: 'The API key is invalid or expired.' }, `${name}: invalid or expired`);
  }
  const lower = await h.request('GET', '/api/partner/trunks', { key: null, headers: { authorization: `bearer ${a.key}` } });
  t.equal(lower.status, 200, 'the scheme is case-insensitive');

  const keyId = (await h.store.apiKeys.listForAccount(a.id))[0]!.id;
  t.ok(await h.store.apiKeys.revoke(keyId));
  const revoked = await h.request('GET', '/api/partner/trunks', { key: a.key });
  t.equal(revoked.status, 401);
  t.same(revoked.body, { error: 'The API key is invalid or expired.' });
});

t.test('trunk endpoints need trunk access', async (t) => {
  const h = await startHarness(t);
  const off = await h.account({ trunking: false });
  for (const [method, path] of [['GET', '/api/partner/trunks'], ['POST', '/api/partner/trunks'], ['GET', '/api/partner/trunks/1'],
    ['PUT', '/api/partner/trunks/1'], ['PATCH', '/api/partner/trunks/1'], ['DELETE', '/api/partner/trunks/1'], ['GET', '/api/partner/trunks/1/connection']] as const) {
    const res = await h.request(method, path, { key: off.key, body: method === 'GET' || method === 'DELETE' ? undefined : {} });
    t.equal(res.status, 403, `${method} ${path}`);
    t.match(res.body.error, /Trunk access is not enabled/);
  }
  await h.store.accounts.update(off.id, { trunking: true });
  t.equal((await h.request('GET', '/api/partner/trunks', { key: off.key })).status, 200, 'enabled later, allowed at once');
});

t.test('cross-account matrix: account B sees nothing of account A', async (t) => {
  const h = await startHarness(t);
  const a = await h.account();
  const b = await h.account();
  const wss = (await h.request('POST', '/api/partner/trunks', { key: a.key, body: { transport: 'wss', label: 'A' } })).body;
  const tcp = (await h.request('POST', '/api/partner/trunks', { key: a.key, body: { label: 'A2' } })).body;
  const nonexistent = await h.request('GET', '/api/partner/trunks/999999', { key: b.key });
  t.equal(nonexistent.status, 404);
  t.same(nonexistent.body, { message: 'Trunk not found.' });
  for (const tr of [wss, tcp]) {
    for (const [method, suffix, body] of [
      ['GET', '', undefined], ['PUT', '', { label: 'B' }], ['PATCH', '', { label: 'B' }], ['DELETE', '', undefined], ['GET', '/connection', undefined],
    ] as const) {
      const res = await h.request(method, `/api/partner/trunks/${tr.id}${suffix}`, { key: b.key, body });
      t.equal(res.status, 404, `B ${method} A's trunk${suffix}`);
      t.same(res.body, nonexistent.body, 'identical to a nonexistent trunk');
    }
  }
  t.same((await h.request('GET', '/api/partner/trunks', { key: b.key })).body, { data: [] }, "A's trunks are not in B's list");
  const still = await h.request('GET', `/api/partner/trunks/${wss.id}`, { key: a.key });
  t.equal(still.body.label, 'A', "B's writes changed nothing");
  t.equal(still.body.status, 'active');
  for (const id of ['abc', '1.5', '-1', '0x1', '99999999999999999999']) {
    const res = await h.request('GET', `/api/partner/trunks/${id}`, { key: a.key });
    t.equal(res.status, 404, `id ${id}`);
    t.same(res.body, nonexistent.body);
  }
});
