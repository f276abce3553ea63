// Two FreeSWITCH processes behind one control plane (FREESWITCH_SERVERS): new calls go to the less loaded server,
// a draining server takes no new calls while its calls go on, a Dial's far end gets its media beside the caller's,
// and a server that dies (SIGKILL) ends only its own calls (cause media-server-lost); the other server's calls keep
// their audio flowing and new calls still work.
import t, { type Test } from 'tap';
import { enginesOrSkip, startExtraMediaServer, type ExtraMediaServer } from '../../helpers/engines.js';
import { xml } from '../../helpers/webhook-app.js';
import { until } from '../../helpers/waits.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { hangUpCaller, runCaller, type SippRun } from '../../engine-suite/real-sipp.js';
import { rtpRecorder, type RtpRecorder } from '../../engine-suite/real-rtp.js';
import { freePort } from '../../helpers/server-process.js';
import { startMediaOrigin, toneWav } from '../../helpers/media-origin.js';
import { cli } from '../../helpers/spawn.js';
import { checker, phase, roomCallers, untilAllHeard } from './support/room-audio.js';
import { scene, CALLER, DID } from '../../engine-suite/flows.js';
import { eslApi } from '../../../src/engine/drachtio/esl-probe.js';
import { carrierAtAddress } from '../../../src/store/carriers.js';

interface Caller { rtp: RtpRecorder; sipp: SippRun; hangup(): Promise<void> }

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  async function twoServers(tt: Test): Promise<{ d: RealDriver; extra: ExtraMediaServer; names: [string, string]; channels: () => Promise<[number, number]> }> {
    const extra = await startExtraMediaServer(bins!);
    tt.teardown(() => extra.stop());
    const d = await make(tt, (eng) => ({
      FREESWITCH_SERVERS: [eng.freeswitch, extra.address].map((s) => `${s.host}:${s.port}:${s.password}`).join(','),
    }));
    const main = d.engines.freeswitch;
    const count = async (s: { host: string; port: number; password: string }) => {
      try { return Number(/^(\d+) session\(s\) - peak/m.exec(await eslApi(s.host, s.port, s.password, 'status'))?.[1] ?? NaN); } catch { return 0; }
    };
    return {
      d, extra, names: [`${main.host}:${main.port}`, `${extra.address.host}:${extra.address.port}`],
      channels: async () => [await count(main), await count(extra.address)],
    };
  }

  t.test('placement by load, drain, and the loss of one server', async (t) => {
    const { d, extra, names, channels } = await twoServers(t);
    const s = await scene(t, d);
    // A played file, not <Say>: a sentence repeated would be rendered on loopback channels that count as load.
    const origin = await startMediaOrigin(t);
    origin.on('/tone.wav', { body: toneWav(1), headers: { 'content-type': 'audio/wav', 'cache-control': 'max-age=3600' } });
    s.app.on('/voice', xml(`<Play>${origin.origin}/tone.wav</Play><Pause length="40"/>`));
    // Several callers at once, each from a port of its own (the driver's inbound() holds one caller port).
    await d.h.store.carriers.add('callers', carrierAtAddress('127.0.0.1', null, null));
    const place = async (): Promise<Caller> => {
      const rtp = await rtpRecorder();
      const localPort = await freePort();
      const sipp = await runCaller({ target: d.sipTarget, localPort, rtpPort: rtp.port, from: CALLER, to: DID, plan: { hangupAfterMs: 60_000 }, scratch: d.scratch });
      await until('the caller to hear the platform', 10_000, () => rtp.firstAudibleAt() !== null);
      return { rtp, sipp, hangup: () => hangUpCaller(sipp, localPort).finally(() => rtp.close()) };
    };
    const calls: Caller[] = [];
    for (let i = 0; i < 4; i++) calls.push(await place());
    t.same(await channels(), [2, 2], 'four calls: two on each server (least loaded first)');
    t.match((await d.h.request('GET', '/healthz')).body.engine.detail, /FreeSWITCH 2 of 2 taking calls/);

    const rb = cli(d.h.dataDir);
    const drained = await rb('media', 'drain', names[1], '--url', d.h.url);
    t.equal(drained.code, 0, drained.stderr);
    t.match(drained.stdout, new RegExp(`^${names[1]}\\s+draining\\s+2 session`), 'the operator drains the second server with the CLI');
    t.match((await d.h.request('GET', '/healthz')).body.engine.detail, new RegExp(`${names[1]} draining`));
    const unknown = await rb('media', 'drain', '127.0.0.1:1', '--url', d.h.url);
    t.match(unknown, { code: 1, stderr: /server answered 404: No media server is named 127\.0\.0\.1:1/ }, 'an unknown server is one clear line');
    for (let i = 0; i < 2; i++) calls.push(await place());
    t.same(await channels(), [4, 2], 'new calls avoid the draining server; its calls go on');

    const before = calls.map((c) => c.rtp.packets());
    await extra.kill();
    const lostAt = Date.now();
    const ended = async () => (await d.h.store.sql.one<{ n: number }>("SELECT COUNT(*) AS n FROM calls WHERE hangup_cause = 'media-server-lost'"))!;
    await until('the dead server\'s two calls to end', 10_000, async () => (await ended()).n === 2);
    t.pass(`its two calls ended (media-server-lost) ${Date.now() - lostAt} ms after the kill`);
    const codes = calls.map((c) => { let code: number | null = null; void c.sipp.exited.then((x) => { code = x; }); return () => code; });
    await until('the two callers to get their BYE', 5_000, () => codes.filter((c) => c() !== null).length === 2);
    t.same(codes.map((c) => c()).filter((c) => c !== null), [0, 0], "the dead server's callers got a BYE (their scenarios completed)");
    const open = (await d.h.store.sql.one<{ n: number }>("SELECT COUNT(*) AS n FROM calls WHERE status = 'in-progress'"))!;
    t.equal(open.n, 4, "the other server's four calls are still up");
    // The dead server's callers get no more frames; the four others keep receiving them (25 frames = 0.5 s).
    const sampledAt = calls.map((c) => c.rtp.packets());
    await until('RTP to keep flowing on the surviving calls', 5_000, () => calls.filter((c, i) => c.rtp.packets() > sampledAt[i]! + 25).length === 4);
    t.pass('four calls still receive audio frames after the loss');
    t.ok(before.every((n) => n > 0), 'every call had media before');

    const late = await place();
    t.same((await channels())[0], 5, 'a new call goes to the surviving server');
    const listed = await rb('--json', 'media', 'list', '--url', d.h.url);
    t.match(JSON.parse(listed.stdout), [{ name: names[0], state: 'up' }, { name: names[1], state: 'down' }], 'media list: one up, one down');
    const metrics = (await d.h.request('GET', '/metrics')).text;
    t.match(metrics, new RegExp(`ringbase_media_server_up\\{server="${names[0]}"\\} 1`));
    t.match(metrics, new RegExp(`ringbase_media_server_up\\{server="${names[1]}"\\} 0`));
    await Promise.all([...calls.filter((_, i) => codes[i]!() === null), late].map((c) => c.hangup()));
    calls.forEach((c) => c.rtp.close());
  });

  t.test("a Dial's far end gets its media on the caller's server", async (t) => {
    const { d, names, channels } = await twoServers(t);
    const s = await scene(t, d);
    d.engine.drainMediaServer(names[0], true); // the caller lands on the second server
    await d.party('+15558880001', { behavior: 'answer', hangupAfterMs: 3_000 });
    s.app.on('/voice', xml('<Dial timeout="10"><Number>+15558880001</Number></Dial>'));
    const call = await d.inbound(CALLER, DID);
    await until('the bridge (two channels)', 10_000, async () => (await channels())[1] === 2);
    t.same(await channels(), [0, 2], 'caller and callee media both on the second server, bridged there');
    await call.ended;
    t.equal((await s.finalCall()).status, 'completed');
  });

  t.test('a conference room lives on one server; members whose media is elsewhere join through a relay', async (t) => {
    const { d, names, channels } = await twoServers(t);
    const room = 'CF00000000000000000000000000000001';
    const { callers, join } = await roomCallers(t, d, room);
    d.engine.drainMediaServer(names[1], true);
    await join('a');
    t.equal(d.engine.conferenceServer(room), names[0], 'the room opens on the server of its first member');
    d.engine.drainMediaServer(names[1], false);
    d.engine.drainMediaServer(names[0], true);
    await join('b');
    await join('c');
    t.same(await channels(), [3, 4], "b and c are on the second server, each relayed to the room's server");

    const check = checker(t);
    await untilAllHeard(callers);
    let heard = await phase(callers);
    for (const listener of ['a', 'b', 'c'] as const) {
      for (const speaker of ['a', 'b', 'c'] as const) if (listener !== speaker) check(heard, listener, speaker, true, 'everyone hears the others across servers');
    }
    await callers.b.member.setMuted(true);
    heard = await phase(callers, [['a', 'b'], ['c', 'b']]);
    check(heard, 'a', 'b', false, 'a relayed member muted is heard by nobody');
    check(heard, 'c', 'b', false, 'a relayed member muted is heard by nobody');
    check(heard, 'b', 'a', true, 'and still hears the room');

    await callers.c.member.leave();
    t.notOk(callers.c.leg.isEnded, 'a relayed member that leaves keeps its call');
    await until('the relay to be released', 5_000, async () => JSON.stringify(await channels()) === '[2,3]');
    t.pass("its relay is released on both servers (its own channel stays)");

    const endedAt = Date.now();
    await callers.a.member.endRoom();
    const codes = await Promise.all([callers.a.sipp.exited, callers.b.sipp.exited]);
    t.same(codes, [0, 0], `ending the room sends a BYE to the local and the relayed member (${Date.now() - endedAt} ms)`);
    await callers.c.leg.hangup();
  });
}
