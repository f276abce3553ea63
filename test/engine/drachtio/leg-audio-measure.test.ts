// The leg-audio measure itself (support/leg-audio.ts), on made-up packets: a tone missing from a listener's packets
// counts against the platform, unless the phone saying it was stalled then; and only so many may be excused.
import t from 'tap';
import { MEASURED_PACKETS, packetTones, tally } from './support/leg-audio.js';

const PACKET = 160;
const HZ = 1000;

/** `count` packets of a 1000 Hz tone at -10 dBFS, with the packets in `silent` left silent. */
function packets(count: number, silent: ReadonlySet<number>): Float32Array {
  const samples = new Float32Array(count * PACKET);
  for (let i = 0; i < samples.length; i++) {
    if (!silent.has(Math.floor(i / PACKET))) samples[i] = 0.3 * Math.sin((2 * Math.PI * HZ * i) / 8000);
  }
  return samples;
}

t.test('missing packets count against the platform; those in a sender stall are left out of the share and said', async (t) => {
  const gap = new Set([50, 51, 52, 53, 54, 55]);
  const samples = packets(MEASURED_PACKETS + 10, gap);
  const plain = packetTones(samples, 0, [HZ]);
  t.equal(plain.heard[HZ], 0.94, 'six of 100 missing: 94 %');
  t.same(plain.missing, { silent: 6, sound: 0 });
  t.same(plain.gaps, ['50-55']);

  const excused = packetTones(samples, 0, [HZ], [], (packet, hz) => hz === HZ && packet >= 50 && packet <= 55);
  t.equal(excused.heard[HZ], 1, 'the six excused: 94 of 94');
  t.same(excused.excused, { [HZ]: 6 });
  t.same(excused.missing, { silent: 0, sound: 0 }, 'and not counted as missing');

  const recorded: string[] = [];
  const bad = tally({ comment: (m: string) => recorded.push(m), same: (found: unknown, wanted: unknown, message: string) => t.same(found, wanted, message) } as never);
  bad.record('excused call', [['listener', excused]]);
  t.match(recorded[0], /left out of the shares: 6 without 1000 Hz while its phone was stalled/, 'the output says what was left out');
  bad.check('a call with a short stall');
});

t.test('a sender stalled for more than 20 of the measured packets fails the call: it says too little of the platform', async (t) => {
  const gap = new Set(Array.from({ length: 25 }, (_, i) => 40 + i));
  const measured = packetTones(packets(MEASURED_PACKETS + 10, gap), 0, [HZ], [], (packet) => packet >= 40 && packet < 65);
  t.equal(measured.excused?.[HZ], 25);
  const found: unknown[] = [];
  const calls = tally({ comment: () => undefined, same: (f: unknown) => found.push(f) } as never);
  calls.record('long stall', [['listener', measured]]);
  calls.check('long stall');
  t.equal((found[0] as string[]).length, 1, 'the call is counted as bad');
});
