// The operator's media-server routes on the sandbox engine, which has none: a clear 409, token required.
import t from 'tap';
import { startHarness } from '../../helpers/harness.js';
import { operatorToken } from '../../../src/operator-token.js';

t.test('the sandbox has no media servers to list or drain; the routes need the operator token', async (t) => {
  const h = await startHarness(t);
  const token = operatorToken(h.dataDir, false)!;
  const auth = { authorization: `Bearer ${token}` };
  const list = await h.request('GET', '/operator/media-servers', { key: null, headers: auth });
  t.equal(list.status, 409);
  t.match(list.text, /The sandbox engine has no media servers/);
  const drain = await h.request('POST', '/operator/media-servers/127.0.0.1:8021', { key: null, headers: auth, body: { draining: true } });
  t.equal(drain.status, 409);
  const bad = await h.request('POST', '/operator/media-servers/127.0.0.1:8021', { key: null, headers: auth, body: { draining: 'yes' } });
  t.equal(bad.status, 422, 'a body that is not {draining: boolean} is refused');
  const anonymous = await h.request('GET', '/operator/media-servers', { key: null });
  t.equal(anonymous.status, 401);
});
