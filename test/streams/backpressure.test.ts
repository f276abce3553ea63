// A peer that never reads: what the platform sends piles up in the socket; past MAX_UNSENT_BYTES the stream ends
// ('peer-not-reading', the socket dropped) instead of holding more memory. The call is not touched. Runs on a
// fake clock, so minutes of audio are generated at once against a real socket whose reader is paused.
import type { AddressInfo } from 'node:net';
import t from 'tap';
import WebSocket, { WebSocketServer } from 'ws';
import { MAX_UNSENT_BYTES, MediaStream } from '../../src/streams/media-stream.js';
import { sandbox } from '../engine/sandbox/_support.js';

t.test('a peer that stops reading ends its stream, not the call', async (t) => {
  const sb = await sandbox(t);
  const incoming = sb.nextIncoming();
  const call = sb.engine.simulateInbound({ from: '+15550001111', to: '+15550002222' });
  const leg = await (await incoming).answer();

  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', () => resolve()));
  t.teardown(() => { for (const c of wss.clients) c.terminate(); wss.close(); });
  // The peer reads the handshake, then never again.
  wss.on('connection', (ws) => { (ws as unknown as { _socket: { pause(): void } })._socket.pause(); ws.on('error', () => undefined); });
  const ws = new WebSocket(`ws://127.0.0.1:${(wss.address() as AddressInfo).port}`);
  await new Promise((resolve) => ws.once('open', resolve));

  const tap = await leg.openAudio({ mode: 'bidirectional' });
  const stream = new MediaStream(ws, tap, leg, { streamSid: 'MZ1', accountSid: 'AC1', callSid: 'CA1', tracks: ['inbound'], customParameters: {} });
  let peak = 0;
  for (let minutes = 0; minutes < 30 && !stream.isEnded; minutes++) {
    await sb.clock.advance(60_000);
    peak = Math.max(peak, ws.bufferedAmount);
  }
  const end = await stream.ended;
  t.match(end, { reason: 'peer-not-reading', detail: /more than 1048576 bytes/ });
  t.ok(peak <= MAX_UNSENT_BYTES + 4096, `at most ${MAX_UNSENT_BYTES} bytes held (peak ${peak})`);
  t.equal(ws.readyState, WebSocket.CLOSED, 'the socket was dropped');
  await tap.closed;
  t.notOk(call.isEnded, 'the call is still up');
  leg.hangup();
});
