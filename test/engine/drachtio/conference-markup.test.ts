// Conferences as customers use them, on the real engines: three sipp callers reach a number whose document is
// <Dial><Conference>, each sending its own tone; the platform's conference service then mutes, holds (with hold
// audio fetched through the media cache, or a hold document), coaches, announces (audio, then a document) and ends, and
// each caller's RTP shows who hears whom.
import t from 'tap';
import { checker, phase, HOLD_HZ, TONES, type Name } from './support/room-audio.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { startMediaOrigin, toneWav } from '../../helpers/media-origin.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, DID } from '../../engine-suite/flows.js';
import { rtpRecorder, toneAlaw, type RtpRecorder } from '../../engine-suite/real-rtp.js';
import { runCaller, type SippRun } from '../../engine-suite/real-sipp.js';
import { readFileSync } from 'node:fs';
import { decodeWav } from '../../../src/media/wav.js';
import { bestToneShare, toneShare } from '../../helpers/tone.js';
import { bestCorrelation } from '../../helpers/correlation.js';
import { carrierAtAddress } from '../../../src/store/carriers.js';

/** Ending the conference to every caller's BYE. */
const BYE_WITHIN_MS = 2_000;
const HOLD_SENTENCE = 'Thank you for holding, someone will be with you shortly.';
const ANNOUNCE_SENTENCE = 'This conference is being recorded for quality purposes.';

const sampleMarks = (callers: Record<Name, Caller>) => Object.fromEntries(Object.values(callers).map((c) => [c.name, c.rtp.samples().length])) as Record<Name, number>;
const samplesSince = (callers: Record<Name, Caller>, marks: Record<Name, number>) =>
  Object.fromEntries(Object.values(callers).map((c) => [c.name, c.rtp.samples().subarray(marks[c.name])])) as Record<Name, Float32Array>;

/** The prompt cache's render of `text` in the default voice, as samples. */
function rendered(d: { h: { app: { callServices: { prompts?: { take(text: string, voice: string): { file: string; release(): void } | null } | null } } } }, text: string): Float32Array {
  const lease = d.h.app.callServices.prompts?.take(text, 'default');
  if (!lease) throw new Error(`no render of "${text}"`);
  try {
    return decodeWav(readFileSync(lease.file)).channels[0]!;
  } finally {
    lease.release();
  }
}

/**
 * How well `heard` holds the rendered speech: the best correlation of quarter-second pieces of it (a packet lost
 * or late on a loaded machine shifts what follows, so one long piece spanning the gap would no longer line up).
 */
function speechIn(speech: Float32Array, heard: Float32Array): number {
  return Math.max(...[2000, 6000, 10000, 14000].filter((at) => at + 2000 <= speech.length).map((at) => bestCorrelation(speech.slice(at, at + 2000), heard).r));
}

interface Caller { name: Name; rtp: RtpRecorder; sipp: SippRun; exited: number | null; callSid: string }

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const make = realDrivers(t, bins);

  t.test('<Dial><Conference> on the real engines: hear, mute, hold, coach, announce, end', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.h.store.carriers.add('conference-callers', carrierAtAddress('127.0.0.1', null, null));
    const origin = await startMediaOrigin(t);
    origin.on('/hold.wav', { body: toneWav(1, HOLD_HZ), headers: { 'content-type': 'audio/wav' } });
    origin.on('/announce.wav', { body: toneWav(1, HOLD_HZ), headers: { 'content-type': 'audio/wav' } });
    s.app.on('/voice', xml('<Dial><Conference record="record-from-start">Team</Conference></Dial>'));
    const repo = d.h.store.conferences;
    const service = d.h.app.callServices.conferences;

    const callers = {} as Record<Name, Caller>;
    for (const [i, name] of (Object.keys(TONES) as Name[]).entries()) {
      const rtp = await rtpRecorder();
      t.teardown(() => rtp.close());
      const sipp = await runCaller({ target: d.sipTarget, localPort: await freePort(), rtpPort: rtp.port, from: `+1555000000${i}`, to: DID, plan: {}, scratch: d.scratch });
      t.teardown(() => sipp.kill());
      const caller: Caller = { name, rtp, sipp, exited: null, callSid: '' };
      void sipp.exited.then((code) => { caller.exited = code; });
      await until(`${name} in the conference`, 15_000, async () => {
        const conf = await repo.openByName(s.accountId, 'Team');
        const p = conf && (await repo.participants(conf.sid)).find((x) => x.status === 'in-progress' && !Object.values(callers).some((c) => c.callSid === x.callSid));
        if (p) caller.callSid = p.callSid;
        return p !== undefined;
      }, 20);
      callers[name] = caller;
      void rtp.sendAudio(toneAlaw(TONES[name], 60_000));
    }
    const conf = (await repo.openByName(s.accountId, 'Team'))!;
    t.equal(conf.status, 'in-progress');
    t.equal(await repo.countInProgress(conf.sid), 3, 'three participants in the room');
    const { a, b, c } = callers;

    const check = checker(t);
    const lease = async (url: string) => {
      const got = await d.h.app.callServices.media.acquire(url);
      if (!got.ok) throw new Error(got.reason);
      return { kind: 'audio' as const, lease: got.lease };
    };

    let heard = await phase(callers);
    for (const listener of ['a', 'b', 'c'] as const) {
      for (const speaker of ['a', 'b', 'c'] as const) if (listener !== speaker) check(heard, listener, speaker, true, 'everyone hears the others');
    }

    await service.updateParticipant(conf.sid, a.callSid, { muted: true });
    heard = await phase(callers, [['b', 'a'], ['c', 'a']]);
    check(heard, 'b', 'a', false, 'muted a is not heard by b');
    check(heard, 'c', 'a', false, 'muted a is not heard by c');
    check(heard, 'a', 'b', true, 'muted a still hears b');
    await service.updateParticipant(conf.sid, a.callSid, { muted: false });

    await service.updateParticipant(conf.sid, b.callSid, { hold: true, holdUrl: `${origin.origin}/hold.wav` }, await lease(`${origin.origin}/hold.wav`));
    heard = await phase(callers, [['b', 'a'], ['a', 'b']]);
    check(heard, 'b', 'hold', true, 'held b hears the hold audio');
    check(heard, 'b', 'a', false, 'held b does not hear the room');
    check(heard, 'a', 'b', false, 'held b is not heard');
    await service.updateParticipant(conf.sid, b.callSid, { hold: false });
    heard = await phase(callers);
    check(heard, 'b', 'hold', false, 'no hold audio after unhold');
    check(heard, 'a', 'b', true, 'b heard again');

    await service.updateParticipant(conf.sid, c.callSid, { coaching: true, callSidToCoach: a.callSid });
    heard = await phase(callers);
    check(heard, 'a', 'c', true, 'coach c is heard by a');
    check(heard, 'b', 'c', false, 'coach c is not heard by b');
    check(heard, 'c', 'b', true, 'the coach hears the room');
    await service.updateParticipant(conf.sid, c.callSid, { coaching: false });

    service.announce(conf.sid, await lease(`${origin.origin}/announce.wav`));
    heard = await phase(callers);
    for (const listener of ['a', 'b', 'c'] as const) check(heard, listener, 'hold', true, 'the announcement reaches everyone');

    // A hold document: b alone hears its <Say> (the very speech the prompt cache rendered) and its <Play>, and the
    // document is asked for again once it has played through.
    s.app.on('/hold-doc', xml(`<Say>${HOLD_SENTENCE}</Say><Play>${origin.origin}/hold.wav</Play>`));
    let marks = sampleMarks(callers);
    const holdDoc = await service.holdSource(conf.sid, `${s.app.url}/hold-doc`, b.callSid);
    if (!holdDoc?.ok) throw new Error(`the hold document was not had: ${JSON.stringify(holdDoc)}`);
    await service.updateParticipant(conf.sid, b.callSid, { hold: true, holdUrl: `${s.app.url}/hold-doc` }, holdDoc.source);
    await until('the hold document played through twice', 40_000, () => s.app.requests.filter((r) => r.path === '/hold-doc' && r.method === 'POST').length >= 3, 50);
    let since = samplesSince(callers, marks);
    const holdSpeech = rendered(d, HOLD_SENTENCE);
    t.ok(speechIn(holdSpeech, since.b) > 0.8, `held b heard the document's <Say> (best correlation with the render ${speechIn(holdSpeech, since.b).toFixed(3)})`);
    t.ok(bestToneShare(since.b, HOLD_HZ) > 0.8, `and its <Play> (tone share ${bestToneShare(since.b, HOLD_HZ).toFixed(3)})`);
    for (const other of ['a', 'c'] as const) {
      t.ok(speechIn(holdSpeech, since[other]) < 0.4, `${other} did not hear b's hold document (correlation ${speechIn(holdSpeech, since[other]).toFixed(3)})`);
    }
    await service.updateParticipant(conf.sid, b.callSid, { hold: false });

    // An announcement document reaches every participant, over the room: everyone is muted for it, so what each
    // hears is the speech alone and its correlation with the render is not lowered by the others' tones.
    s.app.on('/announce-doc', xml(`<Say>${ANNOUNCE_SENTENCE}</Say>`));
    for (const p of [a, b, c]) await service.updateParticipant(conf.sid, p.callSid, { muted: true });
    marks = sampleMarks(callers);
    const announceDoc = await service.holdSource(conf.sid, `${s.app.url}/announce-doc`);
    if (!announceDoc?.ok) throw new Error(`the announcement document was not had: ${JSON.stringify(announceDoc)}`);
    service.announce(conf.sid, announceDoc.source);
    const announceSpeech = await until('the announcement rendered', 30_000, () => d.h.app.callServices.prompts?.prepare(ANNOUNCE_SENTENCE, 'default') ?? false, 100)
      .then(() => rendered(d, ANNOUNCE_SENTENCE));
    // Played once the render exists: the speech's length again, and a margin for the packets to arrive.
    await new Promise((r) => setTimeout(r, announceSpeech.length / 8 + 1_000));
    since = samplesSince(callers, marks);
    for (const listener of ['a', 'b', 'c'] as const) {
      t.ok(speechIn(announceSpeech, since[listener]) > 0.8, `${listener} heard the announcement document (correlation ${speechIn(announceSpeech, since[listener]).toFixed(3)})`);
    }
    for (const p of [a, b, c]) await service.updateParticipant(conf.sid, p.callSid, { muted: false });

    const endedAt = Date.now();
    await service.end(conf.sid, 'conference-ended-via-api');
    await until('every caller got its BYE', BYE_WITHIN_MS, () => Object.values(callers).every((x) => x.exited !== null), 10);
    t.same(Object.values(callers).map((x) => x.exited), [0, 0, 0], `every caller got a BYE within ${Date.now() - endedAt} ms of the end`);
    await until('participants completed', 5_000, async () => (await repo.participants(conf.sid)).every((p) => p.status === 'completed'));
    t.match(await repo.get(conf.sid), { status: 'completed', endReason: 'conference-ended-via-api' });
    const [rec] = await d.h.store.recordings.listForConference(conf.sid);
    t.match(rec, { status: 'completed', source: 'conference' }, 'the conference was recorded');
    const wav = decodeWav(readFileSync(rec!.file));
    const seconds = wav.channels[0]!.length / wav.sampleRate;
    const mix = Math.max(...[TONES.a, TONES.b, TONES.c].map((hz) => toneShare(wav.channels[0]!, hz)));
    t.ok(seconds > 5 && mix > 0.1, `the recording holds the room's mix: ${seconds.toFixed(1)} s, strongest caller tone share ${mix.toFixed(2)}`);
  });
}
