// A redirect through the API, heard on the real engines: a caller in a <Play>, a long <Say>, a <Gather>, an <Enqueue> wait or
// a bridged <Dial> is redirected to a document that plays a 1200 Hz tone, and its RTP must carry that tone within
// 500 ms of the request (the arrival time of the first packet of three in a row that carry it).
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { startMediaOrigin, toneWav } from '../../helpers/media-origin.js';
import { toneShare } from '../../helpers/tone.js';
import { until } from '../../helpers/waits.js';
import { realDrivers, type RealPlacedCall } from '../../engine-suite/real-driver.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { liveSid } from '../../engine-suite/redirect-suite.js';

const OLD_HZ = 440;
const NEW_HZ = 1200;
const PARTY = '+15558880004';
const PACKET = 160;
const ONSET = 3;
const LIMIT_MS = 500;

/** The first sample of ONSET packets in a row carrying `hz`, at or after `from`; -1 if none yet. */
function onset(samples: Float32Array, from: number, hz: number): number {
  let run = 0;
  for (let at = from - (from % PACKET); at + PACKET <= samples.length; at += PACKET) {
    run = toneShare(samples.subarray(at, at + PACKET), hz) > 0.5 ? run + 1 : 0;
    if (run === ONSET) return at - (ONSET - 1) * PACKET;
  }
  return -1;
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(6 * 60_000);
  const make = realDrivers(t, bins);

  const cases: Array<{ name: string; document: (origin: string) => string; party?: boolean }> = [
    { name: 'a looped <Play>', document: (origin) => `<Play loop="0">${origin}/old.wav</Play>` },
    { name: 'a long <Say>', document: () => '<Say loop="0">Please hold the line while we find someone to take your call.</Say>' },
    { name: 'a <Gather> prompt', document: () => '<Gather action="/digits" timeout="600"><Say loop="0">Press one for sales, two for support.</Say></Gather>' },
    { name: 'an <Enqueue> wait', document: (origin) => `<Enqueue waitUrl="${origin}/old.wav" action="/after">support</Enqueue>` },
    { name: 'a bridged <Dial>', document: () => `<Dial action="/dialed" timeout="30"><Number>${PARTY}</Number></Dial>`, party: true },
  ];

  for (const c of cases) {
    t.test(`redirected during ${c.name}: the caller hears the new document within ${LIMIT_MS} ms of the request`, async (t) => {
      const d = await make(t);
      const s = await scene(t, d);
      const origin = await startMediaOrigin(t);
      origin.on('/old.wav', { body: toneWav(2, OLD_HZ), headers: { 'content-type': 'audio/wav' } });
      origin.on('/new.wav', { body: toneWav(3, NEW_HZ), headers: { 'content-type': 'audio/wav' } });
      if (c.party) await d.party(PARTY, { behavior: 'answer', hangupAfterMs: 600_000 });
      s.app.on('/voice', xml(c.document(origin.origin)));
      const call: RealPlacedCall = await d.inbound(CALLER, DID);
      const sid = await liveSid(d, s);
      if (c.party) {
        await until('the dialled party answers', 20_000, async () =>
          (await d.h.store.sql.one("SELECT sid FROM calls WHERE parent_sid = ? AND status = 'in-progress'", [sid])) !== undefined, 20);
      }
      // Past the first second of the old audio, so the redirect stops something under way.
      await new Promise((r) => setTimeout(r, 1_000));
      const from = call.samples().length;
      const asked = Date.now();
      const res = await d.h.request('POST', `/api/calls/${sid}`, { body: { markup: `<Response><Play>${origin.origin}/new.wav</Play><Hangup/></Response>` } });
      t.equal(res.status, 200, res.text.slice(0, 200));
      let at = -1;
      await until(`the ${NEW_HZ} Hz tone`, 5_000, () => (at = onset(call.samples(), from, NEW_HZ)) >= 0, 5);
      const heardMs = call.rtp.arrivalOf(at)! - asked;
      t.ok(heardMs <= LIMIT_MS, `the new document's first audio arrived ${heardMs} ms after the request (at most ${LIMIT_MS})`);
      await call.ended;
      const after = call.samples().subarray(at + ONSET * PACKET, at + 50 * PACKET);
      t.ok(toneShare(after, OLD_HZ) < 0.05, `the old audio stopped (${OLD_HZ} Hz share ${toneShare(after, OLD_HZ).toFixed(3)} after the onset)`);
      t.equal(s.app.requests.filter((r) => ['/digits', '/after', '/dialed'].includes(r.path)).length, 0, 'no action URL was asked');
      t.comment(`${c.name}: ${heardMs} ms`);
    });
  }
}
