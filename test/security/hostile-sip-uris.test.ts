// The hostile SIP destination corpus on every surface that takes a SIP URI: the API's `to` and inline
// <Dial><Sip> are refused with 422 before anything is dialled; a fetched document's hostile <Sip> targets each
// fail visibly (timeline) and are never handed to the engine, and one the linter refuses (a header other than X-
// after ?) refuses the whole document before anything is dialled. The dashboard takes no SIP URI (its test call
// dials the account's own numbers).
import t from 'tap';
import { NumberService } from '../../src/numbers/service.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { scaledClock } from '../helpers/scaled-clock.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { HOSTILE_SIP_URIS } from '../net/support/hostile-sip-uris.js';
import { isSipUri } from '../../src/markup/values.js';

const DID = '+15550001000';
const escape = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
const callCount = async (h: Harness) => (await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM calls'))!.n;

t.ok(HOSTILE_SIP_URIS.length >= 20, `${HOSTILE_SIP_URIS.length} hostile SIP URIs`);

t.test('API: a hostile `to` or inline <Dial><Sip> is a 422 that says why; nothing is dialled', async (t) => {
  for (const env of [{}, { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' }] as Array<Record<string, string>>) {
    const h = await startHarness(t, { env });
    const { id } = await h.account();
    await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, {});
    for (const uri of HOSTILE_SIP_URIS) {
      const direct = await h.request('POST', '/api/calls', { body: { from: DID, to: uri, markup: '<Response><Hangup/></Response>' } });
      t.equal(direct.status, 422, `to ${uri}: 422`);
      t.match(direct.body?.errors?.to?.[0], /refused|not a|not allowed|not a valid|out of range|carries/, `to ${uri}: ${direct.body?.errors?.to?.[0]}`);
      const inline = await h.request('POST', '/api/calls', { body: { from: DID, to: '+15557770001', markup: `<Response><Dial><Sip>${escape(uri)}</Sip></Dial></Response>` } });
      t.equal(inline.status, 422, `inline <Sip>${uri}: 422`);
      t.ok(inline.body?.errors?.markup?.length > 0, `inline <Sip>${uri}: error on markup`);
    }
    t.equal(await callCount(h), 0, 'no call was created');
    t.same(h.engine.originated(), [], 'the engine was asked to dial nothing');
  }
});

/** The corpus entries that pass the markup linter's syntax check: the target policy refuses them at dial time. */
const LINTED = HOSTILE_SIP_URIS.filter(isSipUri);

async function numberWithWebhook(t: Parameters<typeof startHarness>[0]) {
  const h = await startHarness(t, { clock: scaledClock(50), env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const { id } = await h.account();
  const app = await startWebhookApp(t);
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, { webhook_url: `${app.url}/voice` });
  return { h, app };
}

t.test('fetched markup: a <Sip> whose URI carries a header other than X- refuses the document; nothing is dialled', async (t) => {
  const refusedAtLint = HOSTILE_SIP_URIS.filter((u) => !isSipUri(u));
  t.ok(refusedAtLint.length >= 1, `${refusedAtLint.length} refused by the linter`);
  for (const uri of refusedAtLint) {
    const { h, app } = await numberWithWebhook(t);
    app.on('/voice', xml(`<Dial timeout="5"><Sip>${escape(uri)}</Sip></Dial><Say>Still here.</Say>`));
    const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
    await call.ended;
    await h.app.calls.settled();
    const parent = (await h.store.sql.one<{ sid: string; hangup_cause: string }>('SELECT sid, hangup_cause FROM calls WHERE parent_sid IS NULL ORDER BY created_at DESC, sid DESC LIMIT 1'))!;
    t.equal(parent.hangup_cause, 'application-error', `${uri}: the document is refused`);
    t.ok((await h.store.calls.timeline(parent.sid)).some((e) => e.kind === 'markup-error'), 'the timeline says why');
    t.same(h.engine.originated(), [], 'nothing dialled');
  }
});

t.test('fetched markup: each hostile <Sip> fails visibly and is never dialled; the call goes on', async (t) => {
  const { h, app } = await numberWithWebhook(t);
  // Up to 10 targets per <Dial>: the corpus in chunks, each a Dial whose every target must be refused.
  const chunks: string[][] = [];
  for (let i = 0; i < LINTED.length; i += 10) chunks.push(LINTED.slice(i, i + 10));
  const dials = chunks.map((c) => `<Dial timeout="5">${c.map((u) => `<Sip>${escape(u)}</Sip>`).join('')}</Dial>`).join('');
  app.on('/voice', xml(`${dials}<Say>Still here.</Say>`));

  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  await call.ended;
  await h.app.calls.settled();
  const parent = (await h.store.sql.one<{ sid: string }>('SELECT sid FROM calls WHERE parent_sid IS NULL ORDER BY created_at DESC, sid DESC LIMIT 1'))!;
  const refused = (await h.store.calls.timeline(parent.sid)).filter((e) => e.kind === 'dial-target-refused');
  t.equal(refused.length, LINTED.length, 'one timeline entry per hostile target');
  const children = await h.store.sql.all<{ status: string }>('SELECT status FROM calls WHERE parent_sid = ?', [parent.sid]);
  t.equal(children.length, LINTED.length, 'each attempt is in the call log');
  t.ok(children.every((c) => c.status === 'failed'), 'each attempt failed');
  t.same(h.engine.originated(), [], 'the engine was asked to dial none of them');
  t.ok(call.transcript.some((e) => e.type === 'heard-say' && e.text === 'Still here.'), 'the call went on with the next verb');
});

t.test('an allowed SIP destination is dialled at the vetted address', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_SIP_ALLOWED_NETWORKS: '10.20.0.0/16' } });
  const { id } = await h.account();
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, {});
  const res = await h.request('POST', '/api/calls', { body: { from: DID, to: 'sip:pbx@10.20.1.2:5080', markup: '<Response><Hangup/></Response>' } });
  t.equal(res.status, 201, 'an operator-allowed network is reachable');
  await h.app.calls.settled();
  t.match(h.engine.originated(), [{ kind: 'sip', uri: 'sip:pbx@10.20.1.2:5080', via: 'sip:10.20.1.2:5080;transport=udp' }]);
});
