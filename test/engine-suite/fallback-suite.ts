// Fallback URLs, on every engine: a number's or trunk's fallback is asked when its webhook, or an action URL of the
// call, is unavailable (500, a timeout, a refused connection); not when the webhook answers 4xx or bad markup. The
// fallback's document runs (it redirects to a page of its own, which proves it ran on any engine).
import type { Test } from 'tap';
import type { EngineDriver } from './driver.js';
import { makeTrunk, scene, CALLER, DID, type Scene } from './flows.js';
import { xml } from '../helpers/webhook-app.js';
import { APPLICATION_ERROR_MESSAGE } from '../../src/flows/flow.js';
import { NumberService } from '../../src/numbers/service.js';

type MakeDriver = (t: Test) => Promise<EngineDriver>;

/** Nothing listens there: connections are refused at once. */
const REFUSING = 'http://127.0.0.1:1';
const PARTY = '+15558880001';

/** The fallback's document: it says so, then asks /after-fallback, which ends the call. */
function answerAsFallback(s: Scene): void {
  s.app.on('/fallback', xml('<Say>From the fallback.</Say><Redirect>/after-fallback</Redirect>'));
  s.app.on('/after-fallback', xml('<Hangup/>'));
}

/** Changes the scene's number as the API would (the same rules check the URLs). */
async function setNumber(d: EngineDriver, patch: Record<string, unknown>): Promise<void> {
  const numbers = new NumberService(d.h.store.numbers, { allowLocalTargets: true });
  await numbers.update(await numbers.find(DID), patch);
}

async function timelineKinds(d: EngineDriver, sid: string): Promise<string[]> {
  return (await d.h.store.calls.timeline(sid)).map((e) => e.kind);
}

export function fallbackSuite(t: Test, make: MakeDriver): void {
  const primaryFailures: Array<[string, (s: Scene) => { webhook: string; reason: RegExp }]> = [
    ['answers 500', (s) => { s.app.on('/voice', { status: 500, body: 'down' }); return { webhook: `${s.app.url}/voice`, reason: /HTTP 500/ }; }],
    ['times out', (s) => { s.app.on('/voice', 'hang'); return { webhook: `${s.app.url}/voice`, reason: /timeout|timed out/i }; }],
    ['refuses connections', () => ({ webhook: `${REFUSING}/voice`, reason: /ECONNREFUSED|refused|connect/i })],
  ];
  for (const [what, arrange] of primaryFailures) {
    t.test(`a number's webhook that ${what}: the fallback URL is asked, with what went wrong, and its document runs`, async (t) => {
      const d = await make(t);
      const s = await scene(t, d);
      const { webhook, reason } = arrange(s);
      await setNumber(d, { webhook_url: webhook, fallback_url: `${s.app.url}/fallback` });
      answerAsFallback(s);
      const call = await d.inbound(CALLER, DID);
      await call.ended;
      const asked = await s.app.waitFor('/fallback');
      t.same({ ...asked.json, error_reason: undefined }, { from: CALLER, to: DID, direction: 'inbound', error_url: webhook, error_reason: undefined }, 'the webhook\'s parameters, and the URL that failed');
      t.match(asked.json.error_reason, reason);
      await s.app.waitFor('/after-fallback');
      const final = await s.finalCall();
      t.equal(final.status, 'completed');
      const heard = call.heard();
      if (heard) t.same(heard, ['From the fallback.']);
      t.ok((await timelineKinds(d, final.sid)).includes('webhook-fallback'), 'the timeline says the fallback answered');
    });
  }

  t.test('an action URL that answers 503 falls back too; the fallback gets the action\'s parameters', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await setNumber(d, { fallback_url: `${s.app.url}/fallback` });
    s.app.on('/voice', xml('<Redirect>/moved</Redirect>'));
    s.app.on('/moved', { status: 503, body: 'busy' });
    answerAsFallback(s);
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    const asked = await s.app.waitFor('/fallback');
    t.equal(asked.json.error_url, `${s.app.url}/moved`);
    t.equal(asked.json.call_sid, (await s.finalCall()).sid, 'the Redirect\'s own parameters');
    await s.app.waitFor('/after-fallback');
  });

  t.test('no fallback on a 404 or on markup that does not parse; both failing ends with the apology', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await setNumber(d, { fallback_url: `${s.app.url}/fallback` });
    answerAsFallback(s);
    for (const reply of [{ status: 404, body: 'no' }, { body: '<Response><Nonsense/></Response>' }]) {
      s.app.on('/voice', reply);
      await (await d.inbound(CALLER, DID)).ended;
      t.match((await s.finalCall()).hangupCause, /application-error/);
    }
    t.equal(s.app.requests.filter((r) => r.path === '/fallback').length, 0, 'the fallback is for an unavailable webhook only');

    s.app.on('/voice', { status: 500, body: 'down' });
    s.app.on('/fallback', { status: 502, body: 'down too' });
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    await s.app.waitFor('/fallback');
    const final = await s.finalCall();
    t.match(final.hangupCause, /application-error/);
    const heard = call.heard();
    if (heard) t.same(heard, [APPLICATION_ERROR_MESSAGE], 'the apology, only once both failed');
    const error = (await d.h.store.calls.timeline(final.sid)).find((e) => e.kind === 'application-error');
    t.match(error?.detail.reason, /HTTP 500; fallback: webhook answered HTTP 502/, 'the reason names both');
  });

  t.test('a trunk\'s voice_fallback_url, with its method, when its voice webhook answers 500', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.party(PARTY, { behavior: 'answer', hangupAfterMs: 1000 });
    const trunk = await makeTrunk(d, {});
    const updated = await d.h.request('PATCH', `/api/partner/trunks/${trunk.id}`, {
      body: { voice_webhook_url: `${s.app.url}/trunk-voice`, voice_fallback_url: `${s.app.url}/fallback`, voice_fallback_method: 'GET' },
    });
    t.equal(updated.status, 200, 'the API takes the fallback URL and method');
    t.match(updated.body, { voice_fallback_url: `${s.app.url}/fallback`, voice_fallback_method: 'GET' });
    s.app.on('/trunk-voice', { status: 500, body: 'down' });
    answerAsFallback(s);
    await (await d.fromTrunk(trunk, '1001', PARTY)).ended;
    const asked = await s.app.waitFor('/fallback');
    t.equal(asked.method, 'GET', 'voice_fallback_method honoured');
    t.equal(asked.query.get('error_url'), `${s.app.url}/trunk-voice`);
    t.equal(asked.query.get('direction'), 'trunk');
    await s.app.waitFor('/after-fallback');
  });
}
