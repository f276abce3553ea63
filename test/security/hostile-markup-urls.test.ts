// The hostile-URL corpus through markup: inline documents given to the API (<Play>, <Redirect>, <Gather action>,
// <Conference waitUrl> and statusCallback) are refused with 422 before anything is dialled, and documents fetched
// from a webhook skip every hostile <Play> (fetched by nobody) and end in an application error on a hostile
// <Redirect>, never a request to it.
import t from 'tap';
import { checkTargetUrl } from '../../src/net/index.js';
import { NumberService } from '../../src/numbers/service.js';
import { startHarness } from '../helpers/harness.js';
import { scaledClock } from '../helpers/scaled-clock.js';
import { startMediaOrigin } from '../helpers/media-origin.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { STATIC_HOSTILE_URLS } from '../net/support/hostile-urls.js';

const DID = '+15550001000';
const escape = (url: string) => url.replace(/&/g, '&amp;').replace(/</g, '&lt;');

t.ok(STATIC_HOSTILE_URLS.length >= 60, `${STATIC_HOSTILE_URLS.length} hostile URLs`);

t.test('inline markup naming a hostile URL is refused with 422 on markup; nothing is dialled', async (t) => {
  const h = await startHarness(t);
  const { id } = await h.account();
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, {});
  let refused = 0;
  const attr = (url: string) => escape(url).replace(/"/g, '&quot;');
  // <Conference waitUrl> is media (fetched through the media cache) and statusCallback a callback: both are checked.
  const documents = (url: string) => [
    `<Response><Play>${escape(url)}</Play></Response>`,
    `<Response><Redirect>${escape(url)}</Redirect></Response>`,
    `<Response><Gather action="${attr(url)}"><Play>${escape(url)}</Play></Gather></Response>`,
    `<Response><Dial><Conference waitUrl="${attr(url)}">Room</Conference></Dial></Response>`,
    `<Response><Dial><Conference statusCallback="${attr(url)}">Room</Conference></Dial></Response>`,
    JSON.stringify([{ verb: 'dial', targets: [{ type: 'conference', name: 'Room', waitUrl: url, statusCallback: url }] }]),
  ];
  for (const url of STATIC_HOSTILE_URLS) {
    for (const doc of documents(url)) {
      const res = await h.request('POST', '/api/calls', { body: { from: DID, to: '+15557770001', markup: doc } });
      if (res.status === 422 && res.body?.errors?.markup?.length > 0) refused++;
      else t.fail(`accepted: ${doc} → ${res.status} ${res.text}`);
    }
  }
  t.equal(refused, STATIC_HOSTILE_URLS.length * documents('').length, 'every document refused');
  for (const name of ['waitUrl', 'statusCallback']) {
    // Well-formed markup: what refuses it is the URL policy, not the parser.
    const markup = `<Response><Dial><Conference ${name}="http://127.0.0.1:9/x">Room</Conference></Dial></Response>`;
    const res = await h.request('POST', '/api/calls', { body: { from: DID, to: '+15557770001', markup } });
    t.match(res.body?.errors?.markup, [/The URL http:\/\/127\.0\.0\.1:9\/x is refused/], `a loopback ${name} is refused by the policy`);
  }
  t.equal((await h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM calls'))?.n, 0, 'no call was created');
});

t.test('fetched markup: hostile <Play> URLs are skipped and fetched by nobody; a hostile <Redirect> is an application error', async (t) => {
  // The webhook lives on loopback, so this runs with the dev flag; what it admits (plain loopback) is left out, and so
  // are non-http(s) URLs, which make the whole document invalid markup (the inline test above covers them).
  const refusedEvenInDev = STATIC_HOSTILE_URLS.filter((u) => /^https?:/.test(u) && !checkTargetUrl(u, { requireHttps: false, allowLoopback: true }).ok);
  t.ok(refusedEvenInDev.length >= 40, `${refusedEvenInDev.length} http(s) URLs are refused even with the dev flag`);
  const h = await startHarness(t, { clock: scaledClock(50), env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const { id } = await h.account();
  const app = await startWebhookApp(t);
  const origin = await startMediaOrigin(t);
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, { webhook_url: `${app.url}/voice` });
  // Spellings of the media origin itself that the policy refuses: if anyone fetched them, it would see the request.
  const aimed = [`http://[::ffff:127.0.0.1]:${origin.port}/a.wav`, `http://0.0.0.0:${origin.port}/a.wav`];
  const plays = [...refusedEvenInDev, ...aimed].map((u) => `<Play>${escape(u)}</Play>`).join('');
  app.on('/voice', xml(`${plays}<Say>Still here.</Say><Redirect>${escape(`http://[::ffff:127.0.0.1]:${origin.port}/next`)}</Redirect>`));

  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  await call.ended;
  await h.app.calls.settled();
  const row = await h.store.sql.one<{ sid: string }>('SELECT sid FROM calls ORDER BY created_at DESC, sid DESC LIMIT 1');
  const timeline = await h.store.calls.timeline(row!.sid);
  t.equal(timeline.filter((e) => e.kind === 'media-skipped').length, refusedEvenInDev.length + aimed.length, 'each hostile <Play> skipped, visibly');
  t.ok(call.transcript.some((e) => e.type === 'heard-say' && e.text === 'Still here.'), 'the call went on with the next verb');
  t.notOk(call.transcript.some((e) => e.type === 'heard-play'), 'no audio from any of them');
  t.match(timeline.find((e) => e.kind === 'application-error'), { detail: { reason: /refused/ } }, 'the hostile Redirect ends the call as an application error');
  t.equal(origin.seen.length, 0, 'nobody fetched anything from the origin');
});
