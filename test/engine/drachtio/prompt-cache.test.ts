// The prompt cache on the real engines: FreeSWITCH renders a sentence heard twice into the media cache, the render
// is the same speech a live <Say> produces (correlated against what a caller heard), and later callers are played
// that file. Getting the answer's media ready during the webhook fetch leaves nothing behind when the markup
// refuses the call (a caller giving up first: test/engine/drachtio/incoming-lost.test.ts).
import t from 'tap';
import { readFileSync, writeFileSync } from 'node:fs';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { toneWav } from '../../helpers/media-origin.js';
import { bestToneShare } from '../../helpers/tone.js';
import { bestCorrelation } from '../../helpers/correlation.js';
import { until } from '../../helpers/waits.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { decodeWav } from '../../../src/media/wav.js';
import { callChannels } from '../../helpers/fs-channels.js';

const SENTENCE = "Thank you for calling Ringbase support, we're glad you did.";
const TONE_HZ = 440;

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  t.test('a sentence heard twice is rendered once, is the same speech, and plays as a file from then on', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const prompts = d.h.app.callServices.prompts;
    if (!prompts) throw new Error('the real engine keeps a prompt cache');
    s.app.on('/voice', xml(`<Say>${SENTENCE.replace(/'/g, '&apos;')}</Say><Hangup/>`));
    const heard: Float32Array[] = [];
    for (let i = 0; i < 2; i++) {
      const call = await d.inbound(CALLER, DID);
      await call.ended;
      t.equal((await s.finalCall()).status, 'completed');
      heard.push(call.samples());
    }
    t.equal(await prompts.prepare(SENTENCE, 'default'), true, 'rendered (the second call started it)');
    const lease = prompts.take(SENTENCE, 'default');
    if (!lease) throw new Error('the render is in the media cache');
    const rendered = decodeWav(readFileSync(lease.file));
    lease.release();
    const seconds = rendered.channels[0]!.length / rendered.sampleRate;
    t.ok(rendered.sampleRate === 8000 && seconds > 2 && seconds < 8, `an 8 kHz file of the sentence (${seconds.toFixed(2)} s)`);
    t.ok(Math.abs(rendered.channels[0]![0]!) > 0.02, 'audible from its first sample (leading quiet cut)');
    // Quarter-second pieces: a packet the live call lost or sent late (a loaded machine) shifts what follows it, so
    // one long piece spanning the gap would no longer line up; a piece between gaps does.
    const r = Math.max(...[4000, 8000, 12000, 16000].map((at) => bestCorrelation(rendered.channels[0]!.slice(at, at + 2000), heard[0]!).r));
    t.ok(r > 0.8, `the render is the speech a live caller heard (best correlation of four pieces ${r.toFixed(3)})`);

    // Swapping the file's content shows what the next caller is played is the file.
    writeFileSync(lease.file, toneWav(2, TONE_HZ));
    const third = await d.inbound(CALLER, DID);
    await third.ended;
    t.equal((await s.finalCall()).status, 'completed');
    const share = bestToneShare(third.samples(), TONE_HZ);
    t.ok(share > 0.8, `the third caller was played the cached file (tone share ${share.toFixed(3)})`);
  });

  t.test('media readied during the webhook fetch is released when the markup refuses the call', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const channels = () => callChannels(d.engines.freeswitch);
    let release!: () => void;
    s.app.on('/voice', () => new Promise((resolve) => { release = () => resolve(xml('<Reject/>')); }));
    // The driver's inbound() waits for audio or the end: it is awaited once the markup has been given.
    const refused = d.inbound(CALLER, DID);
    await s.app.waitFor('/voice');
    await until('an endpoint readied while the webhook is out', 10_000, async () => (await channels()) === 1);
    release();
    await (await refused).ended;
    const final = await s.finalCall();
    t.ok(final.answeredAt === null && (await d.h.store.calls.timeline(final.sid)).some((e) => e.kind === 'rejected'), `refused by the markup, unanswered (${final.status})`);
    await until('the readied endpoint gone after the refusal', 10_000, async () => (await channels()) === 0);
    t.pass('no FreeSWITCH channel left');
  });
}
