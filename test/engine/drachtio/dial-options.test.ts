// <Dial> options heard on the real engines: the caller hears its country's ringback while the target rings
// (ringTone, measured on its RTP: both tones of the cadence), pressing * once connected hangs up the dialled
// party and the caller's document goes on (hangupOnStar), with answerOnBridge the caller's 200 OK waits for the
// dialled party's, the ringback coming as early media; and through every bridge, the same G.711 law on both sides
// or not, both hear each other.
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { startMediaOrigin, toneWav } from '../../helpers/media-origin.js';
import { bestToneShare, toneShare } from '../../helpers/tone.js';
import { until } from '../../helpers/waits.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { pcapRtp } from '../../engine-suite/real-rtp.js';
import { keyPcap } from '../../engine-suite/real-sipp.js';
import { inviteToOkMs } from '../../engine-suite/real-sipp.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { listenFor, sendersReport, tally, toneCaller, toneParty, CALLER_HZ } from './support/leg-audio.js';

const PARTY = '+15558880005';
const PACKET = 160;
const AFTER_HZ = 1200;
/** Clear of the ringback's 440 and 480 Hz (a 20 ms packet cannot tell 450 from them) and of the caller's 1000. */
const PARTY_HZ = 1400;
/** The screening document's tone, for the party's ears only. */
const SCREEN_HZ = 2000;
/** How long the dialled party rings with answerOnBridge: the caller's INVITE cannot have its 200 OK sooner. */
const BRIDGE_RING_MS = 3_000;

/** Share of the caller's packets, while it heard sound, that carry both tones of a ringback. */
function ringbackShare(samples: Float32Array, [low, high]: [number, number]): { sounding: number; share: number } {
  let sounding = 0;
  let both = 0;
  for (let at = 0; at + PACKET <= samples.length; at += PACKET) {
    const packet = samples.subarray(at, at + PACKET);
    if (Math.max(...packet.map(Math.abs)) < 0.02) continue;
    sounding++;
    if (toneShare(packet, low) > 0.2 && toneShare(packet, high) > 0.2) both++;
  }
  return { sounding, share: sounding ? both / sounding : 0 };
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(5 * 60_000);
  const make = realDrivers(t, bins);

  for (const [ringTone, tones] of [[undefined, [440, 480]], ['uk', [400, 450]]] as const) {
    t.test(`ringTone ${ringTone ?? '(default us)'}: the caller hears ${tones.join(' + ')} Hz ringback while the target rings`, async (t) => {
      const d = await make(t);
      const s = await scene(t, d);
      await d.party(PARTY, { behavior: 'no-answer' });
      s.app.on('/voice', xml(`<Dial timeout="6"${ringTone ? ` ringTone="${ringTone}"` : ''}><Number>${PARTY}</Number></Dial><Hangup/>`));
      const placed = await d.inbound(CALLER, DID);
      await placed.ended;
      const final = await s.finalCall();
      t.match((await d.h.store.calls.timeline(final.sid)).find((e) => e.kind === 'dial-result'), { detail: { status: 'no-answer' } });
      const heard = ringbackShare(placed.samples(), [...tones]);
      // Six seconds of ringing hold two or three rings of either cadence (US: 2 s on, 4 s off).
      t.ok(heard.sounding >= 50, `the caller heard sound in ${heard.sounding} packets`);
      t.ok(heard.share > 0.9, `${(heard.share * 100).toFixed(0)} % of them carry ${tones.join(' and ')} Hz`);
    });
  }

  t.test('hangupOnStar: * ends the connected call; the caller goes on with the next verb', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const origin = await startMediaOrigin(t);
    origin.on('/after.wav', { body: toneWav(2, AFTER_HZ), headers: { 'content-type': 'audio/wav' } });
    await d.party(PARTY, { behavior: 'answer', hangupAfterMs: 600_000 });
    s.app.on('/voice', xml(`<Dial hangupOnStar="true"><Number>${PARTY}</Number></Dial><Play>${origin.origin}/after.wav</Play><Hangup/>`));
    const call = await d.inbound(CALLER, DID);
    let parent = '';
    let child = '';
    await until('the dialled party answers', 20_000, async () => {
      const row = await d.h.store.sql.one<{ sid: string; parent_sid: string }>("SELECT sid, parent_sid FROM calls WHERE parent_sid IS NOT NULL AND status = 'in-progress'");
      child = row?.sid ?? '';
      parent = row?.parent_sid ?? '';
      return child !== '';
    }, 20);
    await call.rtp.sendKey(pcapRtp(keyPcap('*')));
    await until('the dialled call ends', 10_000, async () => (await d.h.store.calls.get(child))?.endedAt != null, 20);
    await call.ended;
    t.equal((await s.finalCall()).hangupCause, 'markup-hangup', 'the caller\'s document went on to its Hangup');
    t.ok((await d.h.store.calls.timeline(parent)).some((e) => e.kind === 'dial-hangup-on-star'), 'the timeline says * ended it');
    t.ok(bestToneShare(call.samples(), AFTER_HZ) > 0.8, 'the caller heard the verb after the Dial');
  });

  t.test('sendDigits and screening: the party gets its keys, then the url document, which the caller never hears; then both hear each other', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    const origin = await startMediaOrigin(t);
    origin.on('/screen.wav', { body: toneWav(2, SCREEN_HZ), headers: { 'content-type': 'audio/wav' } });
    const party = await toneParty(t, d, PARTY, PARTY_HZ, 'PCMU', 500);
    s.app.on('/voice', xml(`<Dial><Number sendDigits="1w#" url="/screen">${PARTY}</Number></Dial><Hangup/>`));
    s.app.on('/screen', xml(`<Play>${origin.origin}/screen.wav</Play>`));
    const caller = await toneCaller(t, d, '+19995550001', DID, CALLER_HZ);
    const [callerHeard, partyHeard] = await Promise.all([listenFor(caller.phone, 0, [PARTY_HZ], [], { senders: { [PARTY_HZ]: party.phone } }), listenFor(party.phone, 0, [CALLER_HZ], [], { senders: { [CALLER_HZ]: caller.phone } })]);
    const calls = tally(t);
    calls.record('screened party', [['caller hears party', callerHeard], ['party hears caller', partyHeard]], await sendersReport({ caller: caller.phone, party: party.phone }));
    calls.check('screened party');
    t.equal(await party.phone.keys(), '1#', 'the party was sent its keys as RFC 2833 events');
    const partySamples = party.phone.samples();
    const screened = shareWith(partySamples.subarray(0, firstPacketWith(partySamples, CALLER_HZ)), SCREEN_HZ);
    const screenPackets = Math.round(screened.share * screened.packets);
    t.ok(screenPackets >= 80, `before the caller, ${screenPackets} of the party's ${screened.packets} packets carry the screening's ${SCREEN_HZ} Hz (2 s of it played)`);
    const leaked = shareWith(caller.phone.samples(), SCREEN_HZ);
    t.equal(leaked.share, 0, `the caller heard the screening in none of its ${leaked.packets} packets`);
    await caller.hangup();
  });

  // A bridge between different G.711 laws is a transcoding one: once, the party heard every packet of the caller's
  // begin with ~10 samples of silence (FreeSWITCH's offer led by opus left the party's write path at 48 kHz).
  for (const [answerOnBridge, partyCodec] of [[false, 'PCMU'], [false, 'PCMA'], [true, 'PCMU']] as const) {
    const name = answerOnBridge ? 'answerOnBridge: ringback as early media, the 200 OK only once the dialled party answers, then'
      : `a <Dial> bridge, the caller on PCMA, the party answering ${partyCodec}:`;
    t.test(`${name} both hear each other`, async (t) => {
      const d = await make(t);
      const s = await scene(t, d);
      const party = await toneParty(t, d, PARTY, PARTY_HZ, partyCodec, BRIDGE_RING_MS);
      s.app.on('/voice', xml(`<Dial${answerOnBridge ? ' answerOnBridge="true"' : ''}><Number>${PARTY}</Number></Dial><Hangup/>`));
      const caller = await toneCaller(t, d, '+19995550001', DID, CALLER_HZ, { traceRtt: true });
      const [callerHeard, partyHeard] = await Promise.all([listenFor(caller.phone, 0, [PARTY_HZ], [], { senders: { [PARTY_HZ]: party.phone } }), listenFor(party.phone, 0, [CALLER_HZ], [], { senders: { [CALLER_HZ]: caller.phone } })]);
      const calls = tally(t);
      calls.record(`party answers ${partyCodec}`, [['caller hears party', callerHeard], ['party hears caller', partyHeard]],
        `${await sendersReport({ caller: caller.phone, party: party.phone })}; caller ${await caller.phone.sources()}`);
      calls.check(`caller PCMA, party ${partyCodec}`);
      // Before the party's tone: the ringback, heard while the call was not answered (or, without the option, after
      // an answer at once).
      const samples = caller.phone.samples();
      const early = ringbackShare(samples.subarray(0, firstPacketWith(samples, PARTY_HZ)), [440, 480]);
      t.ok(early.sounding >= 50, `the caller heard ${early.sounding} packets of ringback before the party`);
      t.ok(early.share > 0.9, `${(early.share * 100).toFixed(0)} % of them carry the ringback's 440 and 480 Hz`);
      await caller.hangup();
      if (!answerOnBridge) return;
      const okAfter = inviteToOkMs(caller.sipp, d.scratch);
      t.ok(okAfter !== null && okAfter >= BRIDGE_RING_MS, `the caller's 200 OK came ${okAfter} ms after its INVITE, not before the party answered (${BRIDGE_RING_MS} ms of ringing)`);
      const final = await s.finalCall();
      const timeline = await d.h.store.calls.timeline(final.sid);
      const at = (kind: string) => timeline.findIndex((e) => e.kind === kind);
      t.ok(at('dial-answered') >= 0 && at('answered') > at('dial'), 'the caller is answered during the Dial, not before it');
    });
  }
}

/** Share of `samples`' packets that carry `hz`. */
function shareWith(samples: Float32Array, hz: number): { packets: number; share: number } {
  let packets = 0;
  let carrying = 0;
  for (let at = 0; at + PACKET <= samples.length; at += PACKET, packets++) if (toneShare(samples.subarray(at, at + PACKET), hz) > 0.2) carrying++;
  return { packets, share: packets ? carrying / packets : 0 };
}

/** Sample index of the first packet carrying `hz` (the end if none does). */
function firstPacketWith(samples: Float32Array, hz: number): number {
  for (let at = 0; at + PACKET <= samples.length; at += PACKET) if (toneShare(samples.subarray(at, at + PACKET), hz) > 0.2) return at;
  return samples.length;
}
