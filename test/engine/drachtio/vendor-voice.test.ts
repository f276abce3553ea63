// Vendor voices on the real engines: an account's OpenAI-compatible speech endpoint (a local stand-in answering, as
// OpenAI does, a streamed 24 kHz stereo WAV; here a pure tone per voice) renders <Say voice="alloy"> and a
// <Say voice="nova"> inside a <Gather>; FreeSWITCH plays the rendered files, and the far end's RTP carries each
// voice's tone (measured by frequency). A second call plays them from the cache without asking the endpoint.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { silence } from '../../helpers/speech-audio.js';
import { bestToneShare } from '../../helpers/tone.js';
import { startSpeechEndpoint, VOICE_TONES } from '../../helpers/speech-endpoint.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { final, scene } from '../../engine-suite/flows.js';
import { callFarEnd } from './support/far-end-call.js';

const MARKUP = '<Response><Say voice="alloy">Welcome to Acme.</Say><Gather numDigits="1" timeout="1"><Say voice="nova">Press one.</Say></Gather><Hangup/></Response>';

async function sayOver(t: Test, d: RealDriver, n: number) {
  const { sid, media } = await callFarEnd(t, d, { number: `+1555000${String(6000 + n)}`, name: `voice-${n}` }, silence(10_000), { markup: MARKUP });
  await final(d, sid);
  return { heard: media.heard(), timeline: await d.h.store.calls.timeline(sid) };
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const make = realDrivers(t, bins);
  t.test("a vendor voice's rendered audio reaches the far end, in each voice, from the cache the second time", async (t) => {
    const d = await make(t);
    await scene(t, d);
    const tts = await startSpeechEndpoint(t);
    const set = await d.h.request('POST', '/v1/voice-settings', { headers: { 'x-forwarded-proto': 'https' }, body: { speech_url: tts.url, speech_model: 'tts-1', voices: ['alloy', 'nova'] } });
    t.equal(set.status, 200, JSON.stringify(set.body));
    for (const [n, via] of [[0, 'rendered'], [1, 'hit']] as const) {
      const { heard, timeline } = await sayOver(t, d, n);
      t.same(timeline.filter((e) => e.kind === 'voice-ready').map((e) => [e.detail.voice, e.detail.via]), [['alloy', via], ['nova', via]]);
      for (const voice of ['alloy', 'nova']) {
        const share = bestToneShare(heard, VOICE_TONES[voice]!);
        t.ok(share > 0.8, `call ${n + 1}: the far end heard ${voice}'s ${VOICE_TONES[voice]} Hz (tone share ${share.toFixed(2)})`);
      }
    }
    t.equal(tts.calls.length, 2, 'each prompt rendered once');
  });
}
