// Blind transfers asked of the platform (SIP REFER in, issue 25 item 3) on the real engines, proven on RTP: a
// sipp caller to a number with a refer_url is bridged by <Dial> to a sipp party, each sending its tone; one of them
// sends REFER. The platform answers 202, reports NOTIFY 100 then 200 (sipp's exit code says all came, then its BYE),
// asks the refer_url, and the other side hears that document's tone. Without a refer_url, REFER is declined (603,
// test/engine/drachtio/inbound-refer.test.ts).
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { toneShare } from '../../helpers/tone.js';
import { startMediaOrigin, toneWav } from '../../helpers/media-origin.js';
import { realDrivers, udpPortTaken, type RealDriver } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID, type Scene } from '../../engine-suite/flows.js';
import { tonePhone } from '../../engine-suite/rtp-phone.js';
import { askCallerToTransfer, hangUpCaller, runCaller, runRtpParty } from '../../engine-suite/real-sipp.js';
import { NumberService } from '../../../src/numbers/service.js';
import { carrierAtAddress } from '../../../src/store/carriers.js';

const PARTY = '+15558880011';
const CALLER_HZ = 500;
const PARTY_HZ = 700;
/** The transfer document's tone: what the transferee hears once transferred. */
const DOCUMENT_HZ = 1100;
const TARGET = 'sip:sales@pbx.example.com';
/** The share of the listened tone in a listener's last second of audio that says it is heard. */
const HEARD = 0.3;
const HEAR_WITHIN_MS = 15_000;

/** The newest calls' timelines, for a failure message. */
async function why(d: RealDriver): Promise<string> {
  const calls = await d.h.store.sql.all<{ sid: string }>('SELECT sid FROM calls ORDER BY created_at DESC, sid DESC LIMIT 2');
  const lines = await Promise.all(calls.map(async ({ sid }) => `${sid}: ${(await d.h.store.calls.timeline(sid)).map((e) => `${e.kind} ${JSON.stringify(e.detail)}`).join(' | ')}`));
  return lines.join(' // ');
}

const lastSecond = (ear: { samples(): Float32Array }) => ear.samples().slice(-8_000);

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  /** A caller bridged to the party by <Dial>, each hearing the other; the number's refer_url plays DOCUMENT_HZ. */
  async function bridged(t: Test, who: 'caller' | 'party'): Promise<{ d: RealDriver; s: Scene; caller: Awaited<ReturnType<typeof start>>; party: Awaited<ReturnType<typeof answer>> }> {
    const d = await make(t);
    const s = await scene(t, d);
    const numbers = new NumberService(d.h.store.numbers, { allowLocalTargets: true });
    await numbers.update(await numbers.find(DID), { refer_url: `${s.app.url}/transfer` });
    const origin = await startMediaOrigin(t);
    origin.on('/transferred.wav', { body: toneWav(30, DOCUMENT_HZ), headers: { 'content-type': 'audio/wav' } });
    s.app.on('/voice', xml(`<Dial><Number>${PARTY}</Number></Dial>`));
    s.app.on('/transfer', xml(`<Play>${origin.origin}/transferred.wav</Play>`));
    await d.h.store.carriers.add('transfer-callers', carrierAtAddress('127.0.0.1', null, '+1999'));

    const answer = async () => {
      const port = await freePort();
      await d.h.store.carriers.add('transfer-party', carrierAtAddress('127.0.0.1', port, PARTY));
      const phone = await tonePhone(PARTY_HZ, 'PCMA');
      const sipp = await runRtpParty(port, phone.port, d.scratch, who === 'party' ? { transferTo: TARGET } : {});
      t.teardown(() => { sipp.kill(); phone.close(); });
      await udpPortTaken(port);
      return { phone, sipp };
    };
    const start = async () => {
      const phone = await tonePhone(CALLER_HZ, 'PCMA');
      const localPort = await freePort();
      const sipp = await runCaller({ target: d.sipTarget, localPort, rtpPort: phone.port, from: CALLER, to: DID, plan: {}, scratch: d.scratch, ...(who === 'caller' ? { transferTo: TARGET } : {}) });
      t.teardown(() => { sipp.kill(); phone.close(); });
      return { phone, sipp, transfer: () => askCallerToTransfer(sipp, localPort), hangup: () => hangUpCaller(sipp, localPort) };
    };
    const party = await answer();
    const caller = await start();
    const shares = () => ({ caller: toneShare(lastSecond(caller.phone), PARTY_HZ), party: toneShare(lastSecond(party.phone), CALLER_HZ) });
    await until(async () => `both hear each other (${JSON.stringify(shares())}); ${await why(d)}; caller sipp: ${caller.sipp.output().slice(-600)}`,
      HEAR_WITHIN_MS, () => shares().caller > HEARD && shares().party > HEARD, 100);
    return { d, s, caller, party };
  }

  t.test('the caller transfers the dialled party: 202, NOTIFY 100 and 200, BYE; the party hears the refer_url document', async (t) => {
    const { d, s, caller, party } = await bridged(t, 'caller');
    await caller.transfer();
    t.equal(await caller.sipp.exited, 0, 'the caller got 202, NOTIFY 100, NOTIFY 200 (subscription terminated), then BYE');
    const heard = () => ({ document: toneShare(lastSecond(party.phone), DOCUMENT_HZ), caller: toneShare(lastSecond(party.phone), CALLER_HZ) });
    await until(() => `the party hears the document alone (${JSON.stringify(heard())})`, HEAR_WITHIN_MS, () => heard().document > HEARD && heard().caller < 0.05, 100)
      .catch((err: Error) => t.fail(err.message));
    t.ok(heard().document > HEARD, `the party hears ${DOCUMENT_HZ} Hz (share ${heard().document.toFixed(3)}), and no longer the caller (${heard().caller.toFixed(3)})`);
    // Heard: the party hangs up, ending the document's 30 s Play, which every flow settling would otherwise wait out.
    await party.sipp.hangup();
    const call = await s.finalCall();
    t.equal(call.hangupCause, 'refer-completed');
    const asked = s.app.requests.find((r) => r.path === '/transfer');
    t.match(asked?.json, { refer_transfer_target: TARGET, transferor_call_sid: call.sid, parent_call_sid: call.sid, direction: 'outbound-dial' });
    const child = (await d.h.store.calls.list(s.accountId, { parentSid: call.sid })).calls[0]!;
    await until('the party\'s call is final', 15_000, async () => (await d.h.store.calls.get(child.sid))?.endedAt != null, 50);
    t.equal((await d.h.store.calls.get(child.sid))?.status, 'completed');
  });

  t.test('the dialled party transfers the caller: 202, NOTIFY 100 and 200, BYE; the caller hears the refer_url document', async (t) => {
    const { d, s, caller, party } = await bridged(t, 'party');
    await party.sipp.transfer();
    t.equal(await party.sipp.exited, 0, 'the party got 202, NOTIFY 100, NOTIFY 200 (subscription terminated), then BYE');
    const heard = () => ({ document: toneShare(lastSecond(caller.phone), DOCUMENT_HZ), party: toneShare(lastSecond(caller.phone), PARTY_HZ) });
    await until(() => `the caller hears the document alone (${JSON.stringify(heard())})`, HEAR_WITHIN_MS, () => heard().document > HEARD && heard().party < 0.05, 100)
      .catch((err: Error) => t.fail(err.message));
    t.ok(heard().document > HEARD, `the caller hears ${DOCUMENT_HZ} Hz (share ${heard().document.toFixed(3)}), and no longer the party (${heard().party.toFixed(3)})`);
    await caller.hangup();
    const call = await s.finalCall();
    t.match(s.app.requests.find((r) => r.path === '/transfer')?.json, { refer_transfer_target: TARGET, call_sid: call.sid, direction: 'inbound' });
    const kinds = (await d.h.store.calls.timeline(call.sid)).map((e) => e.kind);
    t.ok(['transfer-asked', 'transfer-done', 'transferred'].every((k) => kinds.includes(k)), kinds.join(', '));
  });
}
