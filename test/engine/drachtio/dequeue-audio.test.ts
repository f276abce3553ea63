// <Dial><Queue> on the real engines, proven on RTP: a sipp caller waits in a queue sending 500 Hz; a second sipp
// call dials the queue sending 700 Hz; once the second took the first out of the line, each hears the other's tone.
// Ending the queued caller's call through the API then ends both (the dialler's document runs out).
import t from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { toneShare } from '../../helpers/tone.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, DID } from '../../engine-suite/flows.js';
import { rtpRecorder, toneAlaw } from '../../engine-suite/real-rtp.js';
import { runCaller } from '../../engine-suite/real-sipp.js';
import { NumberService } from '../../../src/numbers/service.js';
import { carrierAtAddress } from '../../../src/store/carriers.js';

const QUEUED_HZ = 500;
const DIALLER_HZ = 700;
const AGENT_LINE = '+15550001001';
/** What each side must measure of the other's tone in its last second of audio. */
const HEARD = 0.3;
const HEAR_WITHIN_MS = 15_000;

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const make = realDrivers(t, bins);

  t.test('<Dial><Queue> on the real engines: the dialler and the dequeued caller hear each other', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.h.store.carriers.add('queue-callers', carrierAtAddress('127.0.0.1', null, null));
    await new NumberService(d.h.store.numbers, { allowLocalTargets: true }).add(AGENT_LINE, s.accountId, { webhook_url: `${s.app.url}/agent` });
    s.app.on('/voice', xml('<Enqueue>support</Enqueue>'));
    s.app.on('/agent', xml('<Dial><Queue>support</Queue></Dial>'));

    const call = async (from: string, to: string, hz: number) => {
      const rtp = await rtpRecorder();
      t.teardown(() => rtp.close());
      const sipp = await runCaller({ target: d.sipTarget, localPort: await freePort(), rtpPort: rtp.port, from, to, plan: {}, scratch: d.scratch });
      t.teardown(() => sipp.kill());
      void rtp.sendAudio(toneAlaw(hz, 60_000));
      return { rtp, sipp };
    };
    const queued = await call('+15557770001', DID, QUEUED_HZ);
    const queuedSid = await until('the caller in line', 15_000, async () => (await d.h.store.sql.one<{ n: number }>('SELECT COUNT(*) AS n FROM acd_members'))?.n === 1, 20)
      .then(async () => (await d.h.store.sql.one<{ call_sid: string }>('SELECT call_sid FROM acd_members'))!.call_sid);
    const dialler = await call('+15557770002', AGENT_LINE, DIALLER_HZ);

    const lastSecond = (rtp: { samples(): Float32Array }) => rtp.samples().slice(-8_000);
    const shares = () => ({ queued: toneShare(lastSecond(queued.rtp), DIALLER_HZ), dialler: toneShare(lastSecond(dialler.rtp), QUEUED_HZ) });
    await until(`both hear each other (${JSON.stringify(shares())})`, HEAR_WITHIN_MS, () => shares().queued > HEARD && shares().dialler > HEARD, 100)
      .catch((err: Error) => t.fail(err.message));
    const heard = shares();
    t.ok(heard.queued > HEARD, `the dequeued caller hears the dialler's ${DIALLER_HZ} Hz (share ${heard.queued.toFixed(3)})`);
    t.ok(heard.dialler > HEARD, `the dialler hears the dequeued caller's ${QUEUED_HZ} Hz (share ${heard.dialler.toFixed(3)})`);

    const ended = await d.h.request('POST', `/api/calls/${queuedSid}`, { body: { status: 'completed' } });
    t.equal(ended.status, 200, 'the queued caller\'s call is ended through the API');
    t.same(await Promise.all([queued.sipp.exited, dialler.sipp.exited]), [0, 0], 'both calls got their BYE');
    const queue = (await d.h.store.queues.find(s.accountId, 'support'))!;
    t.match(Object.fromEntries(d.h.app.callServices.acd.stats.entries())[queue.sid], { answered: 1 }, 'counted as an offer answered');
  });
}
