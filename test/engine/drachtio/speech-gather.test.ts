// <Gather input="speech"> on the real engines with the offline recognizer (pocketsphinx): an API call runs the Gather
// on a far end (sipp answering, the test's own RTP socket talking) whose audio is silence through the prompt, then a
// word spoken by espeak-ng, then silence. The action hears the word as speech_result for each of "sales", "support"
// and "billing" against those hints; a far end that says nothing gets the empty-result path; a word said over the
// prompt stops it (the far end hears the prompt cut short). What the Gather hears is the caller alone: FreeSWITCH's
// eavesdrop on the caller's read stream (eavesdrop_bridge_aleg), not the prompt it plays.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { concat, silence, speak, speechToolsMissing, type Voice } from '../../helpers/speech-audio.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { final, scene, type Scene } from '../../engine-suite/flows.js';
import { xml } from '../../helpers/webhook-app.js';
import { callFarEnd } from './support/far-end-call.js';
import { pocketsphinxRecognizer } from '../../../src/speech/pocketsphinx.js';

const PROMPT = 'Say sales, support or billing.';
/** A voice espeak-ng says all three words in so that the narrowband model hears them (docs/speech.md has the others). */
const VOICE: Voice = { voice: 'en-us+m7', wordsPerMinute: 130, pitch: 35 };
let parties = 0;

/** Places an API call running `gather` to a far end whose audio is `audio` from its answer on; the action's request. */
async function gatherOver(t: Test, d: RealDriver, s: Scene, gather: string, audio: Float32Array) {
  const n = parties++;
  const action = `/heard-${n}`;
  s.app.on(action, xml('<Hangup/>'));
  const { sid, media } = await callFarEnd(t, d, { number: `+1555000${String(5000 + n)}`, name: `speech-${n}` }, audio,
    { markup: `<Response>${gather.replace('ACTION', `${s.app.url}${action}`)}<Hangup/></Response>` });
  await final(d, sid);
  const heard = s.app.requests.find((r) => r.path === action);
  return { heard: heard?.json, timeline: await d.h.store.calls.timeline(sid), farEndHeard: media.heard() };
}

/** Seconds of `audio` (8 kHz) louder than -40 dBFS in 20 ms windows: how much of the prompt the far end heard. */
function audibleSeconds(audio: Float32Array): number {
  let loud = 0;
  for (let at = 0; at + 160 <= audio.length; at += 160) {
    let sum = 0;
    for (let i = at; i < at + 160; i++) sum += audio[i]! * audio[i]!;
    if (10 * Math.log10(sum / 160 + 1e-12) > -40) loud++;
  }
  return loud * 0.02;
}

const bins = enginesOrSkip(t);
const missing = speechToolsMissing() ?? (pocketsphinxRecognizer() ? null : 'pocketsphinx is not installed (apt-get install pocketsphinx pocketsphinx-en-us)');
if (bins) {
  t.setTimeout(5 * 60_000);
  const make = realDrivers(t, bins);
  t.test('speech gathers on real calls: three words, silence, barge-in', { skip: missing ?? false }, async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const gather = (extra = '') => `<Gather input="speech" hints="sales, support, billing" timeout="3" action="ACTION"${extra}><Say>${PROMPT}</Say></Gather>`;
    for (const word of ['sales', 'support', 'billing']) {
      // Silence through the prompt (about 2.5 s of flite), then the word.
      const { heard, timeline } = await gatherOver(t, d, s, gather(), concat(silence(4_000), speak(word, VOICE), silence(4_000)));
      t.match(heard, { speech_result: word, confidence: null }, `"${word}" heard as ${JSON.stringify(heard?.speech_result)}`);
      const speech = timeline.find((e) => e.kind === 'speech');
      t.match(speech?.detail, { recognizer: 'pocketsphinx', text: word });
      t.comment(`"${word}": ${String(speech?.detail.heard_ms)} ms of speech heard, recognized in ${String(speech?.detail.recognized_ms)} ms`);
    }

    const quiet = await gatherOver(t, d, s, gather(' actionOnEmptyResult="true"'), silence(12_000));
    t.match(quiet.heard, { speech_result: '', confidence: null }, 'silence: the empty result');
    t.ok(quiet.timeline.some((e) => e.kind === 'speech-no-input'), 'no input on the timeline');

    const long = 'Welcome to Example Corporation. Calls may be recorded for training and quality purposes. Please listen closely, as our menu options have changed. Say sales, support or billing.';
    const whole = await gatherOver(t, d, s, `<Gather input="speech" timeout="3" action="ACTION" actionOnEmptyResult="true"><Say>${long}</Say></Gather>`, silence(30_000));
    const cut = await gatherOver(t, d, s, `<Gather input="speech" hints="sales, support, billing" timeout="3" action="ACTION"><Say>${long}</Say></Gather>`,
      concat(silence(1_500), speak('billing', VOICE), silence(8_000)));
    // What the Gather heard and gave the recognizer, in the message: a miss says whether speech was heard at all.
    const listened = cut.timeline.filter((e) => e.kind.startsWith('speech')).map((e) => `${e.kind} ${JSON.stringify(e.detail)}`).join('; ');
    t.match(cut.heard, { speech_result: 'billing' }, `speech over the prompt is heard (${listened || 'no speech entry on the timeline'})`);
    const [full, barged] = [audibleSeconds(whole.farEndHeard), audibleSeconds(cut.farEndHeard)];
    t.ok(barged < full / 2, `barge-in stopped the prompt: the far end heard ${barged.toFixed(1)} s of it against ${full.toFixed(1)} s whole`);
  });
}
