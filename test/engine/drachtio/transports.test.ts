// Trunk transports other than UDP on real SIP: TCP (sipp -t t1) and TLS (a small Node UA, since Debian's sipp has
// no TLS) against drachtio's listeners, with the harness's self-signed certificate verified. Each registers with
// digest credentials and places a trunk call answered through the trunk's voice webhook, heard by the caller; over
// TLS the platform also calls the registered trunk, through the connection it registered on (the UA listens on
// nothing else). wss (WebRTC seats) is exercised by webrtc-seat.test.ts.
import t, { type Test } from 'tap';
import { enginesOrSkip } from '../../helpers/engines.js';
import { freePort } from '../../helpers/server-process.js';
import { xml } from '../../helpers/webhook-app.js';
import { realDrivers, type RealDriver } from '../../engine-suite/real-driver.js';
import { runCaller, runRegister } from '../../engine-suite/real-sipp.js';
import { rtpRecorder, type RtpRecorder } from '../../engine-suite/real-rtp.js';
import { SipTlsClient, header } from '../../engine-suite/sip-tls-client.js';
import { final, lastTrunkCall, makeTrunk, scene, DID } from '../../engine-suite/flows.js';

const DIALLED = '+15550002222';

/** An account whose trunk (of `transport`) has a voice webhook answering with `markup`. */
async function trunkWithWebhook(t: Test, d: RealDriver, transport: 'tcp' | 'tls', markup: string) {
  const s = await scene(t, d);
  const tk = await makeTrunk(d, { transport: transport });
  await d.h.store.trunks.updateSettings(tk.id, { voice_webhook_url: `${s.app.url}/trunk-voice` });
  s.app.on('/trunk-voice', xml(markup));
  return { s, tk };
}

/** Resolves once the caller hears audio above silence; false if `over` settles first. */
function audible(rtp: RtpRecorder, over: Promise<unknown>): Promise<boolean> {
  return new Promise((resolve) => {
    const poll = setInterval(() => { if (rtp.firstAudibleAt() !== null) { clearInterval(poll); resolve(true); } }, 10);
    void over.finally(() => { clearInterval(poll); resolve(rtp.firstAudibleAt() !== null); });
  });
}

/** Whether `holds()` becomes true within `ms` (polled every 20 ms). */
async function eventually(holds: () => Promise<boolean>, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (!(await holds())) {
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 20));
  }
  return true;
}

/** Resolves after `ms`, or never once the test is over. */
function within(t: Test, ms: number): Promise<void> {
  return new Promise((resolve) => { const timer = setTimeout(resolve, ms); t.teardown(() => clearTimeout(timer)); });
}

/** An offer like a phone's: PCMA and RFC 2833 keys, media on the recorder's port. */
const offer = (rtpPort: number) => [
  'v=0', 'o=tls-caller 1 1 IN IP4 127.0.0.1', 's=-', 'c=IN IP4 127.0.0.1', 't=0 0', `m=audio ${rtpPort} RTP/AVP 8 101`,
  'a=rtpmap:8 PCMA/8000', 'a=rtpmap:101 telephone-event/8000', 'a=fmtp:101 0-15', 'a=ptime:20', 'a=sendrecv', '',
].join('\r\n');

/** A trunk registered over TLS and called by the platform with `markup`; null when no INVITE arrived in 15 s. */
async function tlsTrunkCalled(t: Test, d: RealDriver, markup: string) {
  await scene(t, d);
  const tk = await makeTrunk(d, { transport: 'tls' });
  const rtp = await rtpRecorder();
  t.teardown(() => rtp.close());
  const ua = await SipTlsClient.connect(d.engines.drachtio.tlsPort, d.engines.drachtio.tlsCert);
  t.teardown(() => ua.close());
  t.equal((await ua.register(tk)).status, 200, 'registered over TLS');
  const answered = ua.answerNext(tk.username, offer(rtp.port));
  const placed = await d.h.request('POST', '/api/calls', { body: { from: DID, to: `client:${tk.username}`, markup, timeout: 20 } });
  t.equal(placed.status, 201, JSON.stringify(placed.body));
  const call = await Promise.race([answered, within(t, 15_000).then(() => null)]);
  return call && { call, tk, rtp, ua, sid: placed.body.sid as string };
}

const bins = enginesOrSkip(t);
if (bins) {
  t.setTimeout(4 * 60_000);
  const make = realDrivers(t, bins);

  t.test('TCP: REGISTER is accepted with the right password (a tcp binding) and refused with a wrong one', async (t) => {
    const d = await make(t);
    await d.h.account();
    const tk = await makeTrunk(d, { transport: 'tcp' });
    const reg = await runRegister(d.sipTarget, await freePort(), tk, d.scratch, 'tcp');
    const code = await reg.exited;
    if (code !== 0) t.comment(reg.output().slice(-1500));
    t.equal(code, 0, '401 answered, 200 OK');
    const [binding] = await d.engine.registrations(tk.username);
    t.equal(binding?.transport, 'tcp', 'registered over TCP');
    t.match(binding?.contact, /;transport=tcp$/, 'its contact says tcp');

    const wrong = await runRegister(d.sipTarget, await freePort(), { ...tk, password: 'not-' + tk.password }, d.scratch, 'tcp');
    t.not(await wrong.exited, 0, 'refused');
    t.match(wrong.output(), /403/, 'with 403');
  });

  t.test('TCP: a trunk call is answered, the caller hears the webhook markup, the platform hangs up over TCP', async (t) => {
    const d = await make(t);
    const { s, tk } = await trunkWithWebhook(t, d, 'tcp', '<Say>You are through to Ringbase over TCP.</Say>');
    const rtp = await rtpRecorder();
    t.teardown(() => rtp.close());
    const sipp = await runCaller({
      target: d.sipTarget, localPort: await freePort(), rtpPort: rtp.port, from: '1001', to: DIALLED, plan: {}, scratch: d.scratch,
      auth: tk, transport: 'tcp',
    });
    t.teardown(() => sipp.kill());
    t.ok(await audible(rtp, sipp.exited), `the caller hears the platform (peak ${rtp.peak().toFixed(3)})`);
    const code = await sipp.exited;
    if (code !== 0) t.comment(sipp.output().slice(-1500));
    t.equal(code, 0, "407 answered, 200 OK, and the platform's BYE received over TCP");
    t.match((await s.app.waitFor('/trunk-voice')).body, /\+15550002222/, 'the trunk webhook was asked about the dialled number');
    const call = await final(d, await lastTrunkCall(d));
    t.equal(call.status, 'completed', 'the platform hanging up completes the call');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });

  t.test('TLS: REGISTER is challenged, accepted with the right password (a tls binding), refused with a wrong one', async (t) => {
    const d = await make(t);
    await d.h.account();
    const tk = await makeTrunk(d, { transport: 'tls' });
    const ua = await SipTlsClient.connect(d.engines.drachtio.tlsPort, d.engines.drachtio.tlsCert);
    t.teardown(() => ua.close());
    const ok = await ua.register(tk);
    t.same(ua.finals.map((r) => r.status), [401, 200], 'challenged, then accepted');
    t.match(header(ok, 'contact'), /expires=120/, 'the granted expiry is returned');
    const [binding] = await d.engine.registrations(tk.username);
    t.equal(binding?.transport, 'tls', 'registered over TLS');
    t.equal(binding?.contact, `sip:${tk.username}@127.0.0.1:${ua.localPort};transport=tls`, 'its contact is the connection');

    const wrong = await ua.register({ ...tk, password: 'not-' + tk.password });
    t.equal(wrong.status, 403, 'a wrong password is refused');
    t.same(ua.finals.slice(2).map((r) => r.status), [401, 403], 'after its challenge');
    t.same(await d.engine.registrations(tk.username), [binding], 'the binding is unchanged');
  });

  t.test('TLS: a trunk call is challenged, answered and heard; the caller hangs up and the call completes', async (t) => {
    const d = await make(t);
    const { s, tk } = await trunkWithWebhook(t, d, 'tls', '<Say>You are through to Ringbase over TLS.</Say><Pause length="30"/>');
    const rtp = await rtpRecorder();
    t.teardown(() => rtp.close());
    const ua = await SipTlsClient.connect(d.engines.drachtio.tlsPort, d.engines.drachtio.tlsCert);
    t.teardown(() => ua.close());

    const call = await ua.invite(DIALLED, '1001', tk, offer(rtp.port));
    t.same(ua.finals.map((r) => r.status), [407, 200], 'challenged, then answered');
    t.match(call.final.body, /m=audio \d+ RTP\/AVP 8/, 'the answer takes PCMA');
    t.ok(await audible(rtp, within(t, 15_000)), `the caller hears the webhook's markup (peak ${rtp.peak().toFixed(3)})`);
    t.match((await s.app.waitFor('/trunk-voice')).body, /\+15550002222/, 'the trunk webhook was asked about the dialled number');
    t.equal(d.engine.activeLegs(), 1, 'the call is up');

    const bye = await call.hangup();
    t.equal(bye.status, 200, 'BYE accepted');
    const byeAt = Date.now();
    const record = await final(d, await lastTrunkCall(d));
    t.ok(Date.now() - byeAt < 5_000, 'ended by the BYE, not by the end of the markup');
    t.equal(record.status, 'completed', 'the caller hanging up completes the call');
    t.ok(record.answeredAt, 'answered');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });

  t.test('TLS: the platform calls a trunk registered over TLS, through that connection; it answers, hears and hangs up', async (t) => {
    const d = await make(t);
    const called = await tlsTrunkCalled(t, d, '<Response><Say>Hello trunk, this is Ringbase calling over TLS.</Say><Pause length="30"/></Response>');
    if (!called) return void t.fail('no INVITE arrived over the TLS connection');
    const { call, tk, rtp, ua, sid } = called;
    t.match(call.invite.startLine, new RegExp(`^INVITE sip:${tk.username}@127\\.0\\.0\\.1:${ua.localPort};transport=tls`), 'sent to the registered contact');
    t.match(call.invite.body, /m=audio \d+ RTP\/AVP[\d ]* 8\b/, 'the offer includes PCMA');
    t.ok(await audible(rtp, within(t, 15_000)), `the trunk hears the platform speak (peak ${rtp.peak().toFixed(3)})`);
    t.ok(await eventually(async () => (await d.h.store.calls.get(sid))!.status === 'in-progress', 5_000), 'the call is in progress');

    t.equal((await call.hangup()).status, 200, 'BYE accepted');
    const byeAt = Date.now();
    const record = await final(d, sid);
    t.ok(Date.now() - byeAt < 5_000, 'ended by the BYE, not by the end of the markup');
    t.equal(record.status, 'completed', 'the trunk hanging up completes the call');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });

  t.test('TLS: a trunk that hangs up the moment it has answered ends the call at once', async (t) => {
    const d = await make(t);
    const called = await tlsTrunkCalled(t, d, '<Response><Pause length="30"/></Response>');
    if (!called) return void t.fail('no INVITE arrived over the TLS connection');
    const { call, sid } = called;
    // The BYE follows the ACK at once: it reaches the platform while FreeSWITCH is still being given the answer.
    t.equal((await call.hangup()).status, 200, 'BYE accepted');
    const byeAt = Date.now();
    const record = await final(d, sid);
    t.ok(Date.now() - byeAt < 5_000, `ended by the BYE (${Date.now() - byeAt} ms), not by the end of the markup`);
    t.equal(record.status, 'completed', 'answered, then completed');
    t.equal(d.engine.activeLegs(), 0, 'no leg left in the engine');
  });
}
