#!/usr/bin/env node
// A media stream peer that echoes the caller back to themselves: the smallest "voice agent" speaking the
// Twilio Media Streams protocol Ringbase uses for <Connect><Stream>. It answers every inbound `media` message
// with the same audio, sends a mark after each second of it and logs the marks Ringbase returns once that
// second has been played to the caller. Node built-ins and `ws` only.
//
//   node examples/echo-agent.mjs [port]        (default 8081, listens on 127.0.0.1)
//
// Point a number's markup at it (development: RINGBASE_DEV_ALLOW_LOCAL_TARGETS=1 allows ws:// to loopback):
//   <Response><Connect><Stream url="ws://127.0.0.1:8081/echo"/></Connect></Response>
import { pathToFileURL } from 'node:url';
import { WebSocketServer } from 'ws';

const FRAMES_PER_MARK = 50;

/**
 * Starts the agent; resolves once it listens. `onMessage(msg, socket)` sees every message Ringbase sends (tests
 * measure with it); `log` gets one line per stream event.
 */
export async function startEchoAgent({ port = 8081, host = '127.0.0.1', onMessage = () => {}, log = () => {} } = {}) {
  const wss = new WebSocketServer({ host, port });
  await new Promise((resolve, reject) => { wss.once('listening', resolve); wss.once('error', reject); });
  wss.on('connection', (socket) => {
    let streamSid = null;
    let echoed = 0;
    socket.on('message', (data) => {
      let msg;
      try { msg = JSON.parse(data.toString()); } catch { return; }
      onMessage(msg, socket);
      switch (msg.event) {
        case 'start':
          streamSid = msg.streamSid;
          log(`stream ${streamSid} started for call ${msg.start.callSid} (${JSON.stringify(msg.start.customParameters)})`);
          break;
        case 'media':
          if (msg.media.track !== 'inbound' || !streamSid) break;
          socket.send(JSON.stringify({ event: 'media', streamSid, media: { payload: msg.media.payload } }));
          if (++echoed % FRAMES_PER_MARK === 0) socket.send(JSON.stringify({ event: 'mark', streamSid, mark: { name: `echo-${echoed / FRAMES_PER_MARK}` } }));
          break;
        case 'mark':
          log(`played to the caller: ${msg.mark.name}`);
          break;
        case 'dtmf':
          log(`caller pressed ${msg.dtmf.digit}`);
          break;
        case 'stop':
          log(`stream ${streamSid} stopped`);
          break;
      }
    });
  });
  return {
    port: wss.address().port,
    close: () => new Promise((resolve) => { for (const c of wss.clients) c.terminate(); wss.close(() => resolve()); }),
  };
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const agent = await startEchoAgent({ port: Number(process.argv[2] ?? 8081), log: (line) => console.log(line) });
  console.log(`echo agent listening on ws://127.0.0.1:${agent.port}`);
}
