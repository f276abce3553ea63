// The RTP gateway's wire format and inbound reorder buffer, on real UDP sockets: frames leave with consecutive
// sequence numbers and timestamps under one SSRC; packets arriving out of order come out in order, a packet
// that never comes is skipped after three more, a late one is dropped; any packet size is re-cut into 20 ms.
import { createSocket } from 'node:dgram';
import t from 'tap';
import { answerAddress, gatewayOffer, RtpGateway } from '../../src/engine/drachtio/rtp-gateway.js';
import { decodeRtp, encodeRtp, type RtpPacket } from '../../src/media/rtp.js';
import { decodeUlaw, encodeUlaw, sampleToUlaw, ulawToSample } from '../../src/media/mulaw.js';

t.test('µ-law round trip is within one quantisation step', async (t) => {
  for (let b = 0; b < 256; b++) t.equal(sampleToUlaw(ulawToSample(b)) === b || (b === 0x7f && sampleToUlaw(ulawToSample(b)) === 0xff), true, `byte ${b}`);
  const samples = Float32Array.from({ length: 800 }, (_, i) => 0.5 * Math.sin(i / 7));
  const back = decodeUlaw(encodeUlaw(samples));
  t.ok(samples.every((s, i) => Math.abs(s - back[i]!) < 0.02));
});

t.test('SDP: the offer names the socket; the answer address is read from media or session level', async (t) => {
  const offer = gatewayOffer('127.0.0.1', 40000, 'sendrecv');
  t.match(offer, /c=IN IP4 127\.0\.0\.1\r\n/);
  t.match(offer, /m=audio 40000 RTP\/AVP 0\r\na=rtpmap:0 PCMU\/8000\r\na=ptime:20\r\na=sendrecv/);
  t.same(answerAddress('v=0\r\nc=IN IP4 10.0.0.1\r\nm=audio 1234 RTP/AVP 0\r\n'), { address: '10.0.0.1', port: 1234 });
  t.same(answerAddress('v=0\r\nc=IN IP4 10.0.0.1\r\nm=audio 1234 RTP/AVP 0\r\nc=IN IP4 10.0.0.2\r\nm=video 5 RTP/AVP 96\r\nc=IN IP4 10.0.0.3\r\n'), { address: '10.0.0.2', port: 1234 });
  t.equal(answerAddress('v=0\r\nm=video 5 RTP/AVP 96\r\n'), null);
});

t.test('inbound: reordered, missing, late and odd-sized packets', async (t) => {
  const frames: number[] = [];
  const gw = await RtpGateway.open('127.0.0.1', (payload) => frames.push(payload[0]!));
  t.teardown(() => gw.close());
  const sender = createSocket('udp4');
  t.teardown(() => sender.close());
  const packet = (seq: number, payload = Buffer.alloc(160, seq & 0xff)): Buffer =>
    encodeRtp({ payloadType: 0, marker: false, sequence: seq & 0xffff, timestamp: seq * 160, ssrc: 7, payload });
  // 65534 and 65535 in order, then across the wrap: 1 before 0, 2; 3 never comes; 4..7; then 3 arrives late.
  const order = [65534, 65535, 1, 0, 2, 4, 5, 6, 7, 3];
  for (const seq of order) sender.send(packet(seq), gw.port, '127.0.0.1');
  sender.send(encodeRtp({ payloadType: 101, marker: false, sequence: 8, timestamp: 0, ssrc: 7, payload: Buffer.alloc(4) }), gw.port, '127.0.0.1');
  // Two 10 ms packets make one frame.
  sender.send(packet(8, Buffer.alloc(80, 8)), gw.port, '127.0.0.1');
  sender.send(packet(9, Buffer.alloc(80, 8)), gw.port, '127.0.0.1');
  const deadline = Date.now() + 2000;
  while (frames.length < 10 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  t.same(frames, [65534 & 0xff, 65535 & 0xff, 0, 1, 2, 4, 5, 6, 7, 8]);
  t.match(gw.stats, { lost: 1, late: 1 });
});

t.test('outbound: consecutive sequence numbers, timestamps from the playout grid, one SSRC, a marker on the first packet only', async (t) => {
  const receiver = createSocket('udp4');
  await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
  t.teardown(() => receiver.close());
  const got: RtpPacket[] = [];
  receiver.on('message', (msg) => { const p = decodeRtp(msg); if (p) got.push(p); });
  const gw = await RtpGateway.open('127.0.0.1', () => undefined);
  t.teardown(() => gw.close());
  gw.connect({ address: '127.0.0.1', port: receiver.address().port });
  gw.send(Buffer.alloc(160, 0), 1_000);
  gw.send(Buffer.alloc(160, 1), 1_020);
  // Sent 45 ms late by the wall clock (a busy event loop), but the next frame on the grid: no pause.
  await new Promise((r) => setTimeout(r, 45));
  gw.send(Buffer.alloc(160, 2), 1_040);
  // Five empty ticks on the grid: a pause of 100 ms.
  gw.send(Buffer.alloc(160, 9), 1_160);
  const deadline = Date.now() + 2000;
  while (got.length < 4 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 5));
  t.equal(got.length, 4);
  t.ok(got.every((p) => p.ssrc === got[0]!.ssrc && p.payloadType === 0));
  t.same(got.map((p) => (p.sequence - got[0]!.sequence) & 0xffff), [0, 1, 2, 3]);
  t.same(got.map((p) => p.marker), [true, false, false, false], 'marked: the first packet only, never a pause (FreeSWITCH would empty its socket)');
  t.same(got.slice(0, 3).map((p) => (p.timestamp - got[0]!.timestamp) >>> 0), [0, 160, 320]);
  t.equal((got[3]!.timestamp - got[2]!.timestamp) >>> 0, 160 * 6, 'the pause advanced the timestamp by its five frames');
});
