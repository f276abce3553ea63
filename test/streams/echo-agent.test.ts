// examples/echo-agent.mjs against the sandbox: the simulated caller hears its own audio back (the digest of
// what it heard equals the frames it sent, in order), and the agent's marks come back in order. Beside it a
// second call streams to a peer that breaks the protocol: that stream ends, the echo call is not affected.
import { createHash } from 'node:crypto';
import t from 'tap';
import { NumberService } from '../../src/numbers/service.js';
import { startHarness } from '../helpers/harness.js';
import { startWebhookApp, xml } from '../helpers/webhook-app.js';
import { startPeer } from './support/peer.js';
// @ts-expect-error: the example is plain JavaScript, used as customers would run it
import { startEchoAgent } from '../../examples/echo-agent.mjs';

t.test('the echo agent: the caller hears itself, marks come back in order, a bad peer elsewhere changes nothing', async (t) => {
  const h = await startHarness(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1' } });
  const { id } = await h.account();
  const app = await startWebhookApp(t);
  const numbers = new NumberService(h.store.numbers, { allowLocalTargets: true });
  await numbers.add('+15550006000', id, { webhook_url: `${app.url}/echo` });
  await numbers.add('+15550006001', id, { webhook_url: `${app.url}/bad` });
  const got: any[] = [];
  const lines: string[] = [];
  const agent = await startEchoAgent({ port: 0, onMessage: (msg: any) => got.push(msg), log: (line: string) => lines.push(line) });
  t.teardown(() => agent.close());
  const bad = await startPeer(t, (c) => void c.waitFor((m) => m.event === 'media').then(() => c.ws.send('{')));
  app.on('/echo', xml(`<Connect><Stream url="ws://127.0.0.1:${agent.port}/echo"><Parameter name="who" value="test"/></Stream></Connect>`));
  app.on('/bad', xml(`<Connect><Stream url="${bad.url}"/></Connect><Say>Next</Say>`));

  const call = h.engine.simulateInbound({ from: '+15557770001', to: '+15550006000' });
  const other = h.engine.simulateInbound({ from: '+15557770002', to: '+15550006001' });
  await other.ended;
  t.ok(other.transcript.some((e) => e.type === 'heard-say' && e.text === 'Next'), 'the bad peer\'s call went on');
  while (got.filter((m) => m.event === 'mark').length < 3) await new Promise((r) => setTimeout(r, 20));
  t.notOk(call.isEnded, 'the echo call is unaffected');
  call.hangup();
  await call.ended;
  await h.app.calls.settled();

  t.same(got.filter((m) => m.event === 'mark').map((m) => m.mark.name).slice(0, 3), ['echo-1', 'echo-2', 'echo-3']);
  const sent = Buffer.concat(got.filter((m) => m.event === 'media').map((m) => Buffer.from(m.media.payload, 'base64')));
  const heard = call.transcript.filter((e) => e.type === 'heard-stream') as Array<{ frames: number; sha1: string }>;
  const frames = heard.reduce((n, e) => n + e.frames, 0);
  t.ok(frames >= 150, `the caller heard ${frames} frames of echo`);
  // Each run of heard audio is a contiguous slice of what the caller sent, in order.
  let at = 0;
  for (const run of heard) {
    const slice = sent.subarray(at, at + run.frames * 160);
    t.equal(createHash('sha1').update(slice).digest('hex'), run.sha1, `run of ${run.frames} frames at frame ${at / 160} is the caller's own audio`);
    at += run.frames * 160;
  }
  t.match(lines, [/stream MZ\w+ started for call CA\w+ \(\{"who":"test"\}\)/, /played to the caller: echo-1/]);
});
