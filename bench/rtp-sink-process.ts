// The benchmark RTP sink's own process (see bench/rtp-sink.ts): prints its port, then answers each command line
// (active, mark, loss, reset) with one JSON line.
import { createInterface } from 'node:readline';
import { RtpCounter } from './rtp-sink.js';

const counter = await RtpCounter.open();
const commands: Record<string, () => unknown> = {
  active: () => counter.active(),
  mark: () => { counter.mark(); return null; },
  loss: () => counter.loss(),
  reset: () => { counter.reset(); return null; },
};
console.log(JSON.stringify({ port: counter.port }));
createInterface({ input: process.stdin })
  .on('line', (line) => console.log(JSON.stringify(commands[line]?.() ?? { error: `unknown command ${line}` })))
  .on('close', () => process.exit(0));
