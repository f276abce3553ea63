// Media streams end to end on the sandbox engine, against a real WebSocket peer on 127.0.0.1: Twilio's messages
// in order with their fields, the caller's audio at 50 frames a second, the peer's audio played to the caller,
// marks echoed once played, clear, DTMF, forks with both tracks and <Stop>, and <Connect action>.
import { createHash } from 'node:crypto';
import t from 'tap';
import { SigningSecrets } from '../../src/accounts/signing-secret.js';
import { createSecretBox } from '../../src/crypto/secret-box.js';
import { decodeUlaw } from '../../src/media/mulaw.js';
import { verify } from '../../src/net/index.js';
import { NumberService } from '../../src/numbers/service.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { toneShare } from '../helpers/tone.js';
import { startWebhookApp, xml, type WebhookApp } from '../helpers/webhook-app.js';
import { mediaOf, startPeer } from './support/peer.js';

const DID = '+15550003000';

async function setup(t: Tap): Promise<{ h: Harness; app: WebhookApp; accountId: number }> {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const { id } = await h.account();
  const app = await startWebhookApp(t);
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, { webhook_url: `${app.url}/voice` });
  return { h, app, accountId: id };
}
type Tap = Parameters<typeof startHarness>[0];

/** The timeline of the newest call. */
const timelineOf = async (h: Harness) => {
  const row = await h.store.sql.one<{ sid: string }>('SELECT sid FROM calls ORDER BY created_at DESC, sid DESC LIMIT 1');
  return h.store.calls.timeline(row!.sid);
};

t.test('<Connect><Stream>: start, 50 frames a second of the caller, echo heard, marks, dtmf, action on close', async (t) => {
  const { h, app, accountId } = await setup(t);
  const peer = await startPeer(t);
  app.on('/voice', xml(`<Connect action="/after"><Stream url="${peer.url}/agent?token=abc" name="agent"><Parameter name="lang" value="en"/></Stream></Connect><Say>Not reached</Say>`));
  app.on('/after', xml('<Say>After the agent</Say>'));
  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  const c = await peer.nextConnection();
  const first = await c.waitFor((m) => m.event === 'media');
  const startedAt = Date.now();
  await c.waitFor((m) => m.event === 'media' && m.media.chunk === '51');
  const elapsed = Date.now() - startedAt;
  t.ok(elapsed > 800 && elapsed < 1400, `50 frames in ${elapsed} ms`);

  // The upgrade signs the whole URL, "<t>.<scheme>://<host><path>?<query>", with the account's signing secret.
  t.equal(c.request.url, '/agent?token=abc');
  const secret = await new SigningSecrets(h.store.accounts, createSecretBox(h.masterKey)).get(accountId);
  const signature = c.request.headers['x-service-signature'];
  const now = Math.floor(Date.now() / 1000);
  t.match(verify(secret, `ws://${c.request.headers.host}${c.request.url}`, signature, now), { ok: true }, 'signed: the URL as the receiver sees it (its scheme, Host, request target)');
  t.match(verify(secret, 'token=abc', signature, now), { ok: false, reason: 'mismatch' }, 'not the query string alone');
  const [connected, start] = c.messages;
  t.same(connected, { event: 'connected', protocol: 'Call', version: '1.0.0' });
  const callSid = (await h.store.sql.one<{ sid: string }>('SELECT sid FROM calls ORDER BY created_at DESC, sid DESC LIMIT 1'))!.sid;
  t.match(start, {
    event: 'start', sequenceNumber: '1', streamSid: /^MZ[0-9a-f]{32}$/,
    start: { callSid, accountSid: `AC${accountId.toString(16).padStart(32, '0')}`, tracks: ['inbound'], customParameters: { lang: 'en' }, mediaFormat: { encoding: 'audio/x-mulaw', sampleRate: 8000, channels: 1 } },
  });
  const media = mediaOf(c.messages).slice(0, 50);
  t.equal(first.media.chunk, '1');
  t.ok(media.every((m, i) => m.media.chunk === String(i + 1) && m.media.timestamp === String(i * 20) && m.streamSid === start.streamSid), 'chunks count up from 1, timestamps by 20 ms');
  t.ok(media.every((m, i) => i === 0 || Number(m.sequenceNumber) === Number(media[i - 1].sequenceNumber) + 1), 'sequence numbers are consecutive');
  const audio = Buffer.concat(media.map((m) => Buffer.from(m.media.payload, 'base64')));
  t.equal(audio.length, 8000, '160 bytes a frame');
  t.ok(toneShare(decodeUlaw(audio), 440) > 0.9, 'the caller\'s 440 Hz tone');

  // The echo: what the caller hears is exactly what the peer sent, and the mark comes back after it played.
  const echo = audio.subarray(0, 1600);
  c.ws.send(JSON.stringify({ event: 'media', streamSid: start.streamSid, media: { payload: echo.toString('base64') } }));
  c.ws.send(JSON.stringify({ event: 'mark', streamSid: start.streamSid, mark: { name: 'echoed' } }));
  const sentAt = Date.now();
  const mark = await c.waitFor((m) => m.event === 'mark');
  t.match(mark, { event: 'mark', streamSid: start.streamSid, mark: { name: 'echoed' } });
  t.ok(Date.now() - sentAt >= 150, 'the mark waited for 200 ms of audio to play');
  t.match(call.transcript.find((e) => e.type === 'heard-stream'), { frames: 10, sha1: createHash('sha1').update(echo).digest('hex') });

  call.press('7');
  t.match(await c.waitFor((m) => m.event === 'dtmf'), { event: 'dtmf', streamSid: start.streamSid, dtmf: { track: 'inbound_track', digit: '7' } });

  c.ws.close();
  const after = await app.waitFor('/after');
  t.match(after.json, { call_sid: callSid, stream_sid: start.streamSid, stream_status: 'completed' });
  await call.ended;
  await h.app.calls.settled();
  t.ok(call.transcript.some((e) => e.type === 'heard-say' && e.text === 'After the agent'), 'markup went on at the action');
  t.notOk(call.transcript.some((e) => e.type === 'heard-say' && e.text === 'Not reached'));
  t.match((await timelineOf(h)).filter((e) => e.kind.startsWith('stream-')).map((e) => [e.kind, e.detail.reason]), [['stream-started', undefined], ['stream-stopped', 'peer-closed']]);
  const seqs = c.messages.filter((m) => m.sequenceNumber).map((m) => Number(m.sequenceNumber));
  t.ok(seqs.every((s, i) => s === i + 1), 'one sequence over every message');
});

t.test('clear drops queued audio at once and answers the pending mark', async (t) => {
  const { h, app } = await setup(t);
  const peer = await startPeer(t);
  app.on('/voice', xml(`<Connect><Stream url="${peer.url}"/></Connect><Say>Next</Say>`));
  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  const c = await peer.nextConnection();
  const start = await c.waitFor((m) => m.event === 'start');
  c.ws.send(JSON.stringify({ event: 'media', streamSid: start.streamSid, media: { payload: Buffer.alloc(8000 * 5, 0x7f).toString('base64') } }));
  c.ws.send(JSON.stringify({ event: 'mark', streamSid: start.streamSid, mark: { name: 'long' } }));
  await new Promise((r) => setTimeout(r, 200));
  const clearedAt = Date.now();
  c.ws.send(JSON.stringify({ event: 'clear', streamSid: start.streamSid }));
  await c.waitFor((m) => m.event === 'mark' && m.mark.name === 'long');
  t.ok(Date.now() - clearedAt < 100, `the mark came back ${Date.now() - clearedAt} ms after clear`);
  const cleared = call.transcript.find((e) => e.type === 'stream-cleared') as { frames: number } | undefined;
  t.ok(cleared && cleared.frames > 200 && cleared.frames < 250, `most of 250 frames dropped (${cleared?.frames})`);
  c.ws.close();
  await call.ended;
  t.ok(call.transcript.some((e) => e.type === 'heard-say' && e.text === 'Next'), 'the call went on with the next verb');
});

t.test('<Start><Stream> forks both tracks while the call goes on; <Stop> ends it with a stop message', async (t) => {
  const { h, app } = await setup(t);
  const peer = await startPeer(t);
  const callback = await startWebhookApp(t);
  app.on('/voice', xml(`<Start><Stream url="${peer.url}" name="rec" track="both_tracks" statusCallback="${callback.url}/status"/></Start>
    <Pause length="1"/><Stop><Stream name="rec"/></Stop><Say>Stopped</Say><Stop><Stream name="rec"/></Stop>`));
  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  const c = await peer.nextConnection();
  const stop = await c.waitFor((m) => m.event === 'stop');
  const start = c.messages[1];
  t.match(start.start, { tracks: ['inbound', 'outbound'], customParameters: {} });
  t.match(stop, { event: 'stop', streamSid: start.streamSid, stop: { callSid: start.start.callSid, accountSid: start.start.accountSid } });
  const inbound = mediaOf(c.messages, 'inbound');
  const outbound = mediaOf(c.messages, 'outbound');
  t.ok(inbound.length >= 40 && Math.abs(inbound.length - outbound.length) <= 1, `both tracks (${inbound.length}, ${outbound.length})`);
  t.ok(toneShare(decodeUlaw(Buffer.from(outbound[5].media.payload, 'base64')), 660) > 0.8, 'the outbound track is what the platform plays');
  t.same((await c.closed).code, 1000);
  c.ws.send(JSON.stringify({ event: 'media', media: { payload: 'AAAA' } }));
  await call.ended;
  await h.app.calls.settled();
  t.ok(call.transcript.some((e) => e.type === 'heard-say' && e.text === 'Stopped'));
  t.notOk(call.transcript.some((e) => e.type === 'heard-stream'), 'a fork plays nothing to the caller');
  const streams = (await timelineOf(h)).filter((e) => e.kind.startsWith('stream-')).map((e) => [e.kind, e.detail.reason]);
  t.same(streams, [['stream-started', undefined], ['stream-stopped', 'stopped'], ['stream-error', 'no running stream of that name']]);
  const started = await callback.waitFor('/status', 1);
  const stopped = await callback.waitFor('/status', 2);
  t.match([started.json, stopped.json], [
    { stream_event: 'stream-started', stream_name: 'rec', stream_sid: start.streamSid, call_sid: start.start.callSid },
    { stream_event: 'stream-stopped', stream_name: 'rec' },
  ]);
});

t.test('a fork ends with its call', async (t) => {
  const { h, app } = await setup(t);
  const peer = await startPeer(t);
  app.on('/voice', xml(`<Start><Stream url="${peer.url}"/></Start><Say>Short</Say>`));
  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  const c = await peer.nextConnection();
  await call.ended;
  t.match(await c.waitFor((m) => m.event === 'stop'), { event: 'stop' });
  t.equal((await c.closed).code, 1000);
});

t.test('a call runs at most four forks at once', async (t) => {
  const { h, app } = await setup(t);
  const peer = await startPeer(t);
  const starts = Array.from({ length: 5 }, (_, i) => `<Start><Stream url="${peer.url}/${i}" name="f${i}"/></Start>`).join('');
  app.on('/voice', xml(`${starts}<Pause length="1"/>`));
  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  await call.ended;
  await h.app.calls.settled();
  t.equal(peer.connections.length, 4);
  const errors = (await timelineOf(h)).filter((e) => e.kind === 'stream-error');
  t.match(errors, [{ detail: { name: 'f4', reason: /at most 4 forked streams/ } }]);
});

t.test('two streams of one call, same query, other paths: each signature holds for its own URL only', async (t) => {
  const { h, app, accountId } = await setup(t);
  const peer = await startPeer(t);
  app.on('/voice', xml(`<Start><Stream url="${peer.url}/one?token=abc"/></Start><Start><Stream url="${peer.url}/two?token=abc"/></Start><Pause length="2"/>`));
  h.engine.simulateInbound({ from: '+15557770001', to: DID });
  const conns = [await peer.nextConnection(), await peer.nextConnection()];
  const secret = await new SigningSecrets(h.store.accounts, createSecretBox(h.masterKey)).get(accountId);
  const now = Math.floor(Date.now() / 1000);
  const urls = conns.map((c) => `ws://${c.request.headers.host}${c.request.url}`).sort();
  t.same(urls.map((u) => new URL(u).pathname), ['/one', '/two']);
  const [a, b] = [...conns].sort((x, y) => String(x.request.url).localeCompare(String(y.request.url))).map((c) => c.request.headers['x-service-signature']);
  t.not(a, b, 'different signatures');
  t.match(verify(secret, urls[0]!, a, now), { ok: true });
  t.match(verify(secret, urls[1]!, b, now), { ok: true });
  t.match(verify(secret, urls[1]!, a, now), { ok: false, reason: 'mismatch' }, "one stream's signature does not open the other path");
  t.match(verify(secret, urls[0]!.replace(/^ws:/, 'wss:'), a, now), { ok: false, reason: 'mismatch' }, 'the scheme is signed');
});
