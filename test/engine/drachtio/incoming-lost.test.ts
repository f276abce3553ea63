// Unanswered calls when the engine loses a server (DrachtioIncomingCall.lost), with stand-ins for drachtio-srf's
// request/response and fsmrf's media server: no binaries needed. Answered calls on the real engines are in
// restart-mid-call.test.ts.
import { EventEmitter } from 'node:events';
import t from 'tap';
import { pino } from 'pino';
import type Srf from 'drachtio-srf';
import { DrachtioIncomingCall } from '../../../src/engine/drachtio/incoming.js';
import type { Endpoint, MediaServer } from '../../../src/engine/drachtio/fsmrf.js';

const SDP = 'v=0\r\nm=audio 4000 RTP/AVP 8\r\n';

function incoming(opts: { media?: boolean } = {}) {
  const sent: number[] = [];
  const destroyed: string[] = [];
  const req = Object.assign(new EventEmitter(), { body: SDP, get: () => 'call-1' });
  const res = {
    get finalResponseSent() { return sent.some((s) => s >= 200); },
    send(status: number) { sent.push(status); },
  };
  const ep = {
    uuid: 'uuid-1', local: { sdp: SDP },
    api: async () => ({ getBody: () => '+OK\n' }),
    destroy: async () => { destroyed.push('endpoint'); },
    // Its SIP dialog with FreeSWITCH, which no BYE from FreeSWITCH will end after a loss.
    dialog: { connected: true, destroy: (_opts: unknown, cb: () => void) => { destroyed.push('media dialog'); cb(); } },
  } as unknown as Endpoint;
  const ms = { createEndpoint: async () => ep } as unknown as MediaServer;
  const srf = { createUAS: () => new Promise(() => undefined) } as unknown as Srf;
  const call = new DrachtioIncomingCall(
    'call-1', '+15557770001', '+15550001000', { kind: 'carrier', name: 'test' },
    req as unknown as Srf.SrfRequest, res as unknown as Srf.SrfResponse,
    () => (opts.media === false ? null : ms), srf, pino({ level: 'silent' }), () => undefined,
  );
  return { call, sent, destroyed };
}

const settledNow = <T>(p: Promise<T>) => Promise.race([p.then(() => true, () => true), new Promise<boolean>((r) => setImmediate(() => r(false)))]);

t.test('drachtio lost: a ringing call is over at once, and can no longer be answered', async (t) => {
  const { call, sent } = incoming();
  await call.ring();
  call.lost('sip-server-lost');
  t.same(await call.ended, { cause: 'sip-server-lost', by: 'local' }, 'ended, with the cause');
  t.same(sent, [180], 'no response attempted on the dead transaction');
  await t.rejects(call.answer(), /ended before it was answered/, 'answer refused');
  await call.reject('unavailable');
  t.same(sent, [180], 'a later reject is a no-op');
});

t.test('FreeSWITCH lost: a ringing call without media is left to be answered or refused later', async (t) => {
  const { call, sent } = incoming();
  call.lost('media-server-lost');
  t.equal(await settledNow(call.ended), false, 'not ended');
  await call.reject('busy');
  t.same(sent, [486], 'refused as the control plane decides');
  t.match(await call.ended, { cause: 'busy' });
});

t.test('FreeSWITCH lost: a call whose media was prepared (early recording) is refused with 503', async (t) => {
  const { call, sent, destroyed } = incoming();
  await call.startEarlyRecording({ file: '/tmp/unused.wav', tracks: 'both', dualChannel: true });
  call.lost('media-server-lost');
  t.same(await call.ended, { cause: 'media-server-lost', by: 'local', sipStatus: 503 }, 'ended, with the cause');
  t.same(sent, [503], '503 to the caller');
  await new Promise((r) => setImmediate(r));
  t.same(destroyed, ['endpoint', 'media dialog'], 'the endpoint released, and its SIP dialog ended');
  call.lost('sip-server-lost');
  t.same(sent, [503], 'a second loss changes nothing');
});

t.test('media readied ahead of the answer is freed when the caller gives up first, and a failed attempt is not kept', async (t) => {
  const gave = incoming();
  gave.call.prepareAnswer();
  await new Promise((r) => setImmediate(r));
  (gave.call as unknown as { req: EventEmitter }).req.emit('cancel');
  t.same(await gave.call.ended, { cause: 'caller-hangup', by: 'remote' });
  await new Promise((r) => setImmediate(r));
  t.same(gave.destroyed, ['endpoint'], 'the readied endpoint is destroyed');

  const noMedia = incoming({ media: false });
  noMedia.call.prepareAnswer();
  await new Promise((r) => setImmediate(r));
  noMedia.call.lost('media-server-lost');
  t.same(noMedia.sent, [], 'a failed early attempt holds no media: a FreeSWITCH loss leaves the call to be answered later');
});
