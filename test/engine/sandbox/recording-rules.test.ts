// The recording rules on the sandbox engine, as on the real ones (test/engine/drachtio/recording-at-answer.test.ts):
// the WAV lasts the time recorded with pauses left out and the resource's duration is what it holds; a recording
// that caught no audio is `absent` (duration 0, an empty WAV served); `completed_at` is the stop, kept through the
// call's end. A fake clock makes the times exact.
import t, { type Test } from 'tap';
import { startHarness, type Harness } from '../../helpers/harness.js';
import { scene, DID, CALLER } from '../../engine-suite/flows.js';
import { xml } from '../../helpers/webhook-app.js';
import { until } from '../../helpers/waits.js';
import { FakeClock } from '../../../src/clock.js';
import { decodeWav } from '../../../src/media/wav.js';
import type { EngineDriver } from '../../engine-suite/driver.js';

async function liveCall(t: Test) {
  const h = await startHarness(t, { fakeClock: true, env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const clock = h.clock as FakeClock;
  const s = await scene(t, { h } as unknown as EngineDriver);
  s.app.on('/voice', xml('<Pause length="600"/>'));
  const call = h.engine.simulateInbound({ from: CALLER, to: DID, caller: {} });
  t.teardown(() => call.hangup());
  let sid = '';
  await until('the call in progress', 10_000, async () => {
    sid = (await h.store.sql.one<{ sid: string }>("SELECT sid FROM calls WHERE status = 'in-progress'"))?.sid ?? '';
    return sid !== '';
  });
  return { h, clock, sid, call };
}

const post = (h: Harness, path: string, body: unknown) => h.request('POST', path, { body });

t.test('pauses are left out of the WAV; the duration is what it holds; completed_at survives the call end', async (t) => {
  const { h, clock, sid, call } = await liveCall(t);
  const started = await post(h, `/api/calls/${sid}/recordings`, { tracks: 'inbound' });
  const rec = `/api/calls/${sid}/recordings/${started.body.sid}`;
  await clock.advance(1_500);
  await post(h, rec, { status: 'paused' });
  await clock.advance(10_000);
  await post(h, rec, { status: 'in-progress' });
  await clock.advance(1_000);
  const stoppedAt = clock.now();
  const stopped = await post(h, rec, { status: 'stopped' });
  t.match(stopped.body, { status: 'completed', duration: 3, channels: 1, completed_at: new Date(stoppedAt).toISOString() });
  const wav = decodeWav((await h.download(`/api/recordings/${started.body.sid}.wav`)).bytes);
  t.equal(wav.channels[0]!.length / wav.sampleRate, 2.5, 'the WAV holds 2.5 s: 1.5 s, a pause of 10 s left out, 1 s');
  await clock.advance(7_000);
  call.hangup();
  await until('the call over', 10_000, async () => (await h.store.calls.get(sid))?.endedAt != null);
  t.equal((await h.request('GET', `/api/recordings/${started.body.sid}`)).body.completed_at, stopped.body.completed_at, "not rewritten by the call's end");
});

t.test('a recording stopped before it caught any audio is absent, with duration 0 and an empty WAV', async (t) => {
  const { h, sid } = await liveCall(t);
  const started = await post(h, `/api/calls/${sid}/recordings`, {});
  const stopped = await post(h, `/api/calls/${sid}/recordings/${started.body.sid}`, { status: 'stopped' });
  t.match(stopped.body, { status: 'absent', duration: 0, channels: 2 });
  const served = await h.download(`/api/recordings/${started.body.sid}.wav`);
  t.equal(served.status, 200);
  const wav = decodeWav(served.bytes);
  t.same([wav.channels.length, wav.channels[0]!.length], [2, 0], 'a valid WAV with no samples');
  const again = await post(h, `/api/calls/${sid}/recordings/${started.body.sid}`, { status: 'paused' });
  t.equal(again.body.code, 'recording_completed', 'finished: no more controls');
});
