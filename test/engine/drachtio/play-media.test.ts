// <Play> on the real engines under the media fetch policy: the control plane fetches customer audio into its
// cache and FreeSWITCH plays the local file. Hostile URLs, here spellings of the test's own loopback listener
// that the policy refuses even with the dev flag, are fetched by nobody: not the control plane, not FreeSWITCH.
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { startMediaOrigin, toneMp3, toneWav } from '../../helpers/media-origin.js';
import { bestToneShare } from '../../helpers/tone.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { eslApi } from '../../../src/engine/drachtio/esl-probe.js';

const TONE_HZ = 440;

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  t.test('FreeSWITCH cannot fetch URLs itself: mod_http_cache is not loaded', async (t) => {
    const d = await make(t);
    const { host, port, password } = d.engines.freeswitch;
    t.equal((await eslApi(host, port, password, 'module_exists mod_http_cache')).trim(), 'false');
  });

  t.test('refused media URLs are fetched by nobody; each is skipped visibly and the call goes on', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const origin = await startMediaOrigin(t);
    origin.on('/tone.wav', { body: toneWav(2, TONE_HZ) });
    const p = origin.port;
    // Each of these reaches the listener on 127.0.0.1 if anyone connects; the dev flag admits only plain loopback.
    const hostile = [
      `http://0.0.0.0:${p}/tone.wav`, `http://[::ffff:127.0.0.1]:${p}/tone.wav`, `http://[::ffff:7f00:1]:${p}/tone.wav`,
      `http://[::127.0.0.1]:${p}/tone.wav`, `http://foo.localhost:${p}/tone.wav`, `http://user:pw@127.0.0.1:${p}/tone.wav`,
      'http://169.254.169.254/latest/meta-data/', 'http://metadata.google.internal/computeMetadata/v1/',
    ];
    const plays = hostile.map((u) => `<Play>${u.replace(/&/g, '&amp;')}</Play>`).join('');
    s.app.on('/voice', xml(`${plays}<Gather numDigits="1" timeout="1"><Play>http://[::ffff:127.0.0.1]:${p}/tone.wav</Play></Gather><Say>After the skipped audio.</Say>`));
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    const final = await s.finalCall();
    t.equal(final.status, 'completed', 'the call ran to its end');
    t.equal(origin.seen.length, 0, 'the loopback listener saw no request at all');
    const skipped = (await d.h.store.calls.timeline(final.sid)).filter((e) => e.kind === 'media-skipped');
    t.equal(skipped.length, hostile.length + 1, 'one timeline entry per refused URL');
    t.ok(call.audio().peak > 0.02, 'the Say after them was heard');
    t.ok(bestToneShare(call.samples(), TONE_HZ) < 0.5, 'no tone was played');
  });

  t.test('an allowed prompt is fetched once by the control plane, cached, and heard by every caller', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const origin = await startMediaOrigin(t);
    origin.on('/tone.wav', { body: toneWav(2, TONE_HZ), headers: { 'content-type': 'audio/wav', 'cache-control': 'max-age=3600' } });
    s.app.on('/voice', xml(`<Play>${origin.origin}/tone.wav</Play><Hangup/>`));
    for (const [round, via] of [['first call', 'fetched'], ['second call', 'hit']] as const) {
      const call = await d.inbound(CALLER, DID);
      await call.ended;
      const final = await s.finalCall();
      t.equal(final.status, 'completed', round);
      t.match((await d.h.store.calls.timeline(final.sid)).find((e) => e.kind === 'media-ready'), { detail: { via } }, `${round}: media ${via}`);
      const share = bestToneShare(call.samples(), TONE_HZ);
      t.ok(share > 0.8, `${round}: the caller heard the ${TONE_HZ} Hz prompt (tone share ${share.toFixed(3)})`);
    }
    t.equal(origin.seen.length, 1, 'one fetch for both calls');
    t.match(origin.seen[0]!.headers['user-agent'], /^Ringbase/, 'fetched by the control plane, not by FreeSWITCH');
  });

  t.test('MP3 prompts play too', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const origin = await startMediaOrigin(t);
    origin.on('/tone.mp3', { body: toneMp3(2, TONE_HZ), headers: { 'content-type': 'audio/mpeg' } });
    s.app.on('/voice', xml(`<Play>${origin.origin}/tone.mp3</Play><Hangup/>`));
    const call = await d.inbound(CALLER, DID);
    await call.ended;
    t.equal((await s.finalCall()).status, 'completed');
    const share = bestToneShare(call.samples(), TONE_HZ);
    t.ok(share > 0.8, `the caller heard the MP3's ${TONE_HZ} Hz tone (tone share ${share.toFixed(3)})`);
  });
}
