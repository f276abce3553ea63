// <Connect><Stream> on the real engines: a sipp caller sends a 700 Hz tone and then a known noise signal (three
// frames of it 35 ms late, as network jitter would have them, and the control plane stalled 35 ms three times); the
// RTP gateway frames them for the WebSocket peer (examples/echo-agent.mjs), which echoes them; the caller must hear
// its own audio back. Measured: media frames per second at the peer, consecutive chunks / sequence numbers / 20 ms
// timestamps, the tone share and the correlation with the known signal of the audio the peer got and of what the
// caller heard, marks answered in order.
import t from 'tap';
import { decodeUlaw } from '../../../src/media/mulaw.js';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { bestToneShare, toneShare } from '../../helpers/tone.js';
import { bestCorrelation, knownNoise, piecewiseCorrelation } from '../../helpers/correlation.js';
import { until } from '../../helpers/waits.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers } from '../../engine-suite/real-driver.js';
import { scene, DID } from '../../engine-suite/flows.js';
import { rtpRecorder, samplesAlaw, toneAlaw } from '../../engine-suite/real-rtp.js';
import { runCaller } from '../../engine-suite/real-sipp.js';
import { mediaOf, startPeer } from '../../streams/support/peer.js';
// @ts-expect-error: the example is plain JavaScript, used as customers would run it
import { startEchoAgent } from '../../../examples/echo-agent.mjs';
import { carrierAtAddress } from '../../../src/store/carriers.js';

const TONE_HZ = 700;

/** Holds this process's event loop for `ms`. */
function stall(ms: number): void {
  const until = Date.now() + ms;
  while (Date.now() < until);
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(3 * 60_000);
  const make = realDrivers(t, bins);

  t.test('<Connect><Stream> to the echo agent: the peer gets the caller at 50 frames/s, the caller hears the echo', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.h.store.carriers.add('stream-callers', carrierAtAddress('127.0.0.1', null, null));
    const received: Array<{ msg: any; at: number }> = [];
    const agent = await startEchoAgent({ port: 0, onMessage: (msg: any) => received.push({ msg, at: Date.now() }) });
    t.teardown(() => agent.close());
    // The greeting gives FreeSWITCH something to send first: the caller (like a phone behind NAT) talks to where audio comes from.
    s.app.on('/voice', xml(`<Say>Connecting</Say><Connect action="/after"><Stream url="ws://127.0.0.1:${agent.port}/echo" name="echo"/></Connect>`));
    s.app.on('/after', xml('<Hangup/>'));

    const rtp = await rtpRecorder();
    t.teardown(() => rtp.close());
    const sipp = await runCaller({ target: d.sipTarget, localPort: await freePort(), rtpPort: rtp.port, from: '+15550000001', to: DID, plan: { hangupAfterMs: 9_000 }, scratch: d.scratch });
    t.teardown(() => sipp.kill());
    await until('the stream started', 15_000, () => received.some((r) => r.msg.event === 'start'), 20);
    const tone = toneAlaw(TONE_HZ, 3_000);
    const noise = knownNoise(1.5 * 8000);
    const toneFrom = Date.now();
    void rtp.sendAudio(Buffer.concat([tone, samplesAlaw(noise)]));
    // Network jitter during the known signal: three frames 35 ms late, each followed by the next back to back.
    // FreeSWITCH's timer used to send nothing for the tick it missed, then discard the late frame (20 ms lost).
    for (const at of [3_300, 3_700, 4_100]) setTimeout(() => rtp.delayNext(35), at);
    // And this process (the control plane, the gateway in it) stalled 35 ms, as a busy machine or a GC pause has it:
    // the echoed frames reach FreeSWITCH late too.
    for (const at of [3_500, 3_900, 4_300]) setTimeout(() => stall(35), at);
    await new Promise((r) => setTimeout(r, 5_500));

    const start = received.find((r) => r.msg.event === 'start')!.msg;
    t.match(start.start, { tracks: ['inbound'], mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } });
    const media = received.filter((r) => r.msg.event === 'media');
    const span = (media.at(-1)!.at - media[0]!.at) / 1000;
    const rate = (media.length - 1) / span;
    t.ok(rate > 45 && rate < 53, `the peer got ${media.length} frames in ${span.toFixed(2)} s: ${rate.toFixed(1)} frames/s`);
    t.ok(media.every((r, i) => r.msg.media.chunk === String(i + 1) && r.msg.media.timestamp === String(i * 20)), 'chunks count up by one, timestamps by 20 ms');
    const seqs = media.map((r) => Number(r.msg.sequenceNumber));
    t.ok(seqs.every((q, i) => i === 0 || q > seqs[i - 1]!), 'sequence numbers increase');
    t.ok(media.every((r) => Buffer.from(r.msg.media.payload, 'base64').length === 160), '160 bytes (20 ms) each');
    // One second in the middle of the tone, as the peer got it.
    const during = media.filter((r) => r.at > toneFrom + 1_500 && r.at < toneFrom + 2_500).map((r) => Buffer.from(r.msg.media.payload, 'base64'));
    const peerShare = toneShare(decodeUlaw(Buffer.concat(during)), TONE_HZ);
    t.ok(peerShare > 0.8, `the peer's audio is the caller's tone: share ${peerShare.toFixed(3)} over ${during.length} frames`);
    const callerShare = bestToneShare(rtp.samples(), TONE_HZ);
    t.ok(callerShare > 0.8, `the caller hears its tone echoed: share ${callerShare.toFixed(3)}`);
    // The known signal, sample for sample: through A-law, FreeSWITCH, the gateway's µ-law and back.
    const peerAudio = decodeUlaw(Buffer.concat(media.filter((r) => r.at > toneFrom + 2_000).map((r) => Buffer.from(r.msg.media.payload, 'base64'))));
    const atPeer = bestCorrelation(noise, peerAudio);
    t.ok(atPeer.r > 0.9, `the peer's audio matches the caller's known signal: correlation ${atPeer.r.toFixed(3)}`);
    const heard = rtp.samples();
    const lastHeard = heard.subarray(Math.max(0, heard.length - 8 * 8000));
    const atCaller = bestCorrelation(noise, lastHeard);
    // On a failure, where: each 250 ms of the signal as correlation@delay (a delay that drops: audio lost).
    const pieces = () => piecewiseCorrelation(noise, lastHeard, 6).map((p, k) => `${p.r.toFixed(2)}@${(p.lag / 8 - k * 250).toFixed(0)}ms`).join(' ');
    t.ok(atCaller.r > 0.9, `the caller hears the known signal echoed: correlation ${atCaller.r.toFixed(3)}${atCaller.r > 0.9 ? '' : `; per 250 ms piece: ${pieces()}`}`);
    const marks = received.filter((r) => r.msg.event === 'mark').map((r) => r.msg.mark.name);
    t.ok(marks.length >= 3, `marks answered: ${marks.join(', ')}`);
    t.same(marks, marks.map((_, i) => `echo-${i + 1}`), 'in order');

    t.equal(await sipp.exited, 0, 'the caller hung up cleanly');
    await until('the peer got stop', 5_000, () => received.some((r) => r.msg.event === 'stop'));
    const call = await s.finalCall();
    const kinds = (await d.h.store.calls.timeline(call.sid)).filter((e) => e.kind.startsWith('stream-')).map((e) => [e.kind, e.detail.reason]);
    t.same(kinds, [['stream-started', undefined], ['stream-stopped', 'call-ended']]);
    await until('no leg left', 5_000, () => d.engine.activeLegs() === 0);
    await until('no SIP dialog left (the stream endpoint\'s included)', 5_000, () => d.engine.openDialogs() === 0);
  });

  t.test('<Start><Stream> forks the call by eavesdropping: the peer gets the call\'s mix while the call goes on', async (t) => {
    const d = await make(t);
    const s = await scene(t, d);
    await d.h.store.carriers.add('fork-callers', carrierAtAddress('127.0.0.1', null, null));
    const peer = await startPeer(t);
    s.app.on('/voice', xml(`<Say>Hello</Say><Start><Stream url="${peer.url}/fork" name="tap" track="outbound_track"/></Start><Pause length="4"/><Stop><Stream name="tap"/></Stop><Say>Goodbye</Say>`));
    const rtp = await rtpRecorder();
    t.teardown(() => rtp.close());
    const sipp = await runCaller({ target: d.sipTarget, localPort: await freePort(), rtpPort: rtp.port, from: '+15550000002', to: DID, plan: {}, scratch: d.scratch });
    t.teardown(() => sipp.kill());
    const c = await peer.nextConnection();
    const start = await c.waitFor((m) => m.event === 'start');
    // eavesdrop gives the call's mix in one stream: delivered as the (first) track asked for, and `start` says so.
    t.same(start.start.tracks, ['outbound']);
    const toneFrom = Date.now();
    void rtp.sendAudio(toneAlaw(TONE_HZ, 3_000));
    await c.waitFor((m) => m.event === 'stop');
    const media = mediaOf(c.messages, 'outbound');
    t.equal(mediaOf(c.messages, 'inbound').length, 0);
    t.ok(media.length > 150, `the fork got ${media.length} frames in about 4 s`);
    const share = toneShare(decodeUlaw(Buffer.concat(media.slice(60, 110).map((m) => Buffer.from(m.media.payload, 'base64')))), TONE_HZ);
    t.ok(share > 0.5, `the fork hears the caller's tone (share ${share.toFixed(3)}, ${Date.now() - toneFrom} ms of tone sent)`);
    t.equal(await sipp.exited, 0, 'the call went on after the fork and ended with the document');
    const call = await s.finalCall();
    const kinds = (await d.h.store.calls.timeline(call.sid)).filter((e) => e.kind.startsWith('stream-')).map((e) => [e.kind, e.detail.reason]);
    t.same(kinds, [['stream-started', undefined], ['stream-stopped', 'stopped']]);
    await until('no leg left', 5_000, () => d.engine.activeLegs() === 0);
    await until('no SIP dialog left (the stream endpoint\'s included)', 5_000, () => d.engine.openDialogs() === 0);
  });
}
