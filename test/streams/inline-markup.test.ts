// Stream URLs in inline markup given to the API: wss:// only (ws:// to loopback only under the development
// flag), on a host the target policy accepts; refused with 422 on `markup` before anything is dialled.
import t from 'tap';
import { NumberService } from '../../src/numbers/service.js';
import { startHarness } from '../helpers/harness.js';

const DID = '+15550005000';

t.test('stream URLs are judged by the customer-URL rule at the API', async (t) => {
  for (const dev of [false, true]) {
    const h = await startHarness(t, { env: dev ? { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } : {} });
    const { id } = await h.account();
    await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, {});
    const place = (markup: string) => h.request('POST', '/api/calls', { body: { from: DID, to: '+15557770001', markup } });
    const refused: Array<[string, RegExp]> = [
      ['ws://agent.example.com/s', /must use wss:\/\//],
      ['wss://10.0.0.7/s', /address_refused/],
      ['wss://169.254.169.254/s', /address_refused/],
      ['wss://metadata.google.internal/s', /internal_hostname/],
      ...(dev ? [] : [['ws://127.0.0.1:9/s', /address_refused/], ['wss://127.0.0.1/s', /address_refused/]] as Array<[string, RegExp]>),
    ];
    for (const [url, reason] of refused) {
      for (const doc of [`<Response><Connect><Stream url="${url}"/></Connect></Response>`, JSON.stringify([{ verb: 'start_stream', url }])]) {
        const res = await place(doc);
        t.equal(res.status, 422, `${dev ? 'dev' : 'prod'}: ${doc}`);
        t.match(res.body?.errors?.markup, [new RegExp(`The stream URL ${url.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')} is refused .*${reason.source}`)]);
      }
    }
    const allowed = dev ? ['wss://agent.example.com/s', 'ws://127.0.0.1:9/s'] : ['wss://agent.example.com/s'];
    for (const url of allowed) {
      const res = await place(`<Response><Connect><Stream url="${url}"/></Connect></Response>`);
      t.equal(res.status, 201, `${dev ? 'dev' : 'prod'}: ${url} accepted`);
    }
  }
});
