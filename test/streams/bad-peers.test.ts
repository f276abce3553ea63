// Bad stream peers: each ends its stream with a clear reason on the timeline and in the log, and the call goes
// on with the next verb. Refused URLs (policy), unreachable, TLS failure, no upgrade, an abrupt close, malformed,
// binary and oversized messages, and a peer flooding more audio than a stream holds.
import { createServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { WebSocketServer } from 'ws';
import { selfSignedPems } from '../../src/crypto/self-signed.js';
import { NumberService } from '../../src/numbers/service.js';
import { startHarness, type Harness } from '../helpers/harness.js';
import { startWebhookApp, xml, type WebhookApp } from '../helpers/webhook-app.js';
import { startPeer, type PeerConnection } from './support/peer.js';

const DID = '+15550004000';
type Tap = Parameters<typeof startHarness>[0];

async function setup(t: Tap): Promise<{ h: Harness; app: WebhookApp }> {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const { id } = await h.account();
  const app = await startWebhookApp(t);
  await new NumberService(h.store.numbers, { allowLocalTargets: true }).add(DID, id, { webhook_url: `${app.url}/voice` });
  return { h, app };
}

/** Runs one call whose stream goes to `url`; returns the stream's timeline entries once the call has ended. */
async function callWith(h: Harness, app: WebhookApp, url: string) {
  app.on('/voice', xml(`<Connect><Stream url="${url}"/></Connect><Say>Next</Say>`));
  const call = h.engine.simulateInbound({ from: '+15557770001', to: DID });
  await call.ended;
  await h.app.calls.settled();
  const row = await h.store.sql.one<{ sid: string }>('SELECT sid FROM calls ORDER BY created_at DESC, sid DESC LIMIT 1');
  const streams = (await h.store.calls.timeline(row!.sid)).filter((e) => e.kind.startsWith('stream-'));
  const wentOn = call.transcript.some((e) => e.type === 'heard-say' && e.text === 'Next');
  return { streams, wentOn, logs: h.logs.join('') };
}

t.test('refused, unreachable, TLS failure and no upgrade: the stream never starts and the call goes on', async (t) => {
  const { h, app } = await setup(t);
  const pems = await selfSignedPems('localhost', 1);
  const tls = createServer({ cert: pems.cert, key: pems.key });
  const wss = new WebSocketServer({ server: tls });
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  t.teardown(() => { wss.close(); tls.close(); });
  const cases: Array<[string, RegExp]> = [
    ['ws://10.1.2.3/s', /^refused \(address_refused\)/],
    ['ws://[::ffff:127.0.0.1]:9/s', /^refused/],
    ['ws://metadata.internal/s', /^refused \(internal_hostname\)/],
    [`ws://127.0.0.1:${await freePort()}/s`, /^unreachable: .*ECONNREFUSED/],
    [`wss://127.0.0.1:${(tls.address() as AddressInfo).port}/s`, /^TLS failure: /],
    [`${app.url.replace('http', 'ws')}/nothing`, /answered HTTP 404/],
  ];
  for (const [url, reason] of cases) {
    const { streams, wentOn, logs } = await callWith(h, app, url);
    t.match(streams, [{ kind: 'stream-error', detail: { reason } }], url);
    t.equal(streams.length, 1, `${url}: never started`);
    t.ok(wentOn, `${url}: the call went on`);
    t.match(logs, /media stream not started/);
  }
});

async function badPeer(t: Tap, behave: (c: PeerConnection, streamSid: string) => void) {
  const { h, app } = await setup(t);
  const peer = await startPeer(t, (c) => void c.waitFor((m) => m.event === 'start').then((start) => behave(c, start.streamSid)));
  const result = await callWith(h, app, peer.url);
  return { ...result, closed: await peer.connections[0]!.closed };
}

t.test('a peer that breaks the protocol ends its stream with a reason and a close code', async (t) => {
  const cases: Array<[string, (c: PeerConnection, sid: string) => void, RegExp, number]> = [
    ['not JSON', (c) => c.ws.send('hello'), /a message is not JSON/, 1002],
    ['no event', (c) => c.ws.send('{"media":{}}'), /no "event"/, 1002],
    ['bad payload', (c, sid) => c.ws.send(JSON.stringify({ event: 'media', streamSid: sid, media: { payload: '***' } })), /no base64 payload/, 1002],
    ['another stream', (c) => c.ws.send(JSON.stringify({ event: 'clear', streamSid: 'MZ0' })), /names another stream/, 1002],
    ['binary', (c) => c.ws.send(Buffer.from([1, 2, 3])), /binary/, 1002],
    ['oversized', (c) => c.ws.send('x'.repeat(70_000)), /.*/, 1009],
  ];
  for (const [name, behave, detail, code] of cases) {
    const { streams, wentOn, closed, logs } = await badPeer(t, behave);
    t.match(streams.map((e) => e.kind), ['stream-started', 'stream-error'], name);
    t.match(streams[1]?.detail, { reason: code === 1009 ? 'message-too-large' : 'protocol-error', detail }, name);
    t.equal(closed.code, code, `${name}: closed with ${code}`);
    t.ok(wentOn, `${name}: the call went on`);
    t.match(logs, /media stream ended by a bad peer/);
  }
});

t.test('a peer that hangs up abruptly, or floods audio, ends only its stream', async (t) => {
  const abrupt = await badPeer(t, (c) => c.ws.terminate());
  t.match(abrupt.streams.map((e) => [e.kind, e.detail.reason]), [['stream-started', undefined], ['stream-stopped', 'peer-closed']]);
  t.ok(abrupt.wentOn);
  const flood = await badPeer(t, (c, sid) => {
    const chunk = JSON.stringify({ event: 'media', streamSid: sid, media: { payload: Buffer.alloc(48_000, 0x7f).toString('base64') } });
    for (let i = 0; i < 25; i++) c.ws.send(chunk);
  });
  t.match(flood.streams[1], { kind: 'stream-error', detail: { reason: 'audio-overflow', detail: /more than 120 s of audio/ } });
  t.equal(flood.closed.code, 1008);
  t.ok(flood.wentOn);
});

async function freePort(): Promise<number> {
  const { createServer: tcp } = await import('node:net');
  const s = tcp();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const { port } = s.address() as AddressInfo;
  await new Promise((r) => s.close(r));
  return port;
}
