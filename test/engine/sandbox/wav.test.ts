import t from 'tap';
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { decodeWav, encodeWav, readWavInfo, writeWav } from '../../../src/engine/sandbox/index.js';
import { sandbox } from './_support.js';

t.test('encode/decode round trip keeps rate, channels, length and samples', async (t) => {
  const left = Float32Array.from({ length: 800 }, (_, i) => Math.sin(i / 10) * 0.5);
  const right = new Float32Array(800);
  const buf = encodeWav({ sampleRate: 8000, channels: [left, right] });
  t.equal(buf.length, 44 + 800 * 2 * 2);
  t.equal(buf.toString('ascii', 0, 4), 'RIFF');
  const back = decodeWav(buf);
  t.equal(back.sampleRate, 8000);
  t.equal(back.channels.length, 2);
  t.ok(back.channels[0]!.every((s, i) => Math.abs(s - left[i]!) < 1e-4), 'left survives 16-bit quantisation');
  t.ok(back.channels[1]!.every((s) => s === 0));
});

t.test('readWavInfo reports duration and peak; writeWav creates directories', async (t) => {
  const { dir } = await sandbox(t);
  const file = path.join(dir, 'nested', 'tone.wav');
  writeWav(file, { sampleRate: 8000, channels: [Float32Array.from({ length: 12_000 }, (_, i) => (i % 2 ? 0.25 : -0.25))] });
  const info = await readWavInfo(file);
  t.same({ ...info, peak: Math.round(info.peak * 100) / 100 }, { sampleRate: 8000, channels: 1, durationMs: 1500, peak: 0.25 });
});

t.test('unknown chunks are skipped; garbage is refused', async (t) => {
  const { dir } = await sandbox(t);
  const plain = encodeWav({ sampleRate: 8000, channels: [new Float32Array(80)] });
  const list = Buffer.from('LIST\x04\x00\x00\x00abcd', 'latin1');
  const withList = Buffer.concat([plain.subarray(0, 36), list, plain.subarray(36)]);
  t.equal(decodeWav(withList).channels[0]!.length, 80);
  const file = path.join(dir, 'junk.wav');
  writeFileSync(file, 'not audio at all');
  await t.rejects(readWavInfo(file), /RIFF/);
});
