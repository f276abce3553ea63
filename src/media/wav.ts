// Minimal RIFF/WAVE PCM 16-bit codec: enough for sandbox recordings and transcoded media to be real, playable files, and for
// tests (and later the recordings API) to inspect them without an audio library.
import { writeFileSync } from 'node:fs';
import { ensurePrivateDir, PRIVATE_FILE_MODE } from '../private-files.js';
import { readFile } from 'node:fs/promises';
import path from 'node:path';

export interface WavAudio {
  sampleRate: number;
  /** One array per channel, samples in [-1, 1]; all the same length. */
  channels: Float32Array[];
}

export interface WavInfo {
  sampleRate: number;
  channels: number;
  durationMs: number;
  /** Largest absolute sample, 0..1: tells a tone from silence. */
  peak: number;
}

const HEADER_BYTES = 44;

export function encodeWav({ sampleRate, channels }: WavAudio): Buffer {
  const frames = channels[0]?.length ?? 0;
  const dataBytes = frames * channels.length * 2;
  const buf = Buffer.alloc(HEADER_BYTES + dataBytes);
  buf.write('RIFF', 0, 'ascii');
  buf.writeUInt32LE(36 + dataBytes, 4);
  buf.write('WAVE', 8, 'ascii');
  buf.write('fmt ', 12, 'ascii');
  buf.writeUInt32LE(16, 16);
  buf.writeUInt16LE(1, 20); // PCM
  buf.writeUInt16LE(channels.length, 22);
  buf.writeUInt32LE(sampleRate, 24);
  buf.writeUInt32LE(sampleRate * channels.length * 2, 28);
  buf.writeUInt16LE(channels.length * 2, 32);
  buf.writeUInt16LE(16, 34);
  buf.write('data', 36, 'ascii');
  buf.writeUInt32LE(dataBytes, 40);
  let offset = HEADER_BYTES;
  for (let i = 0; i < frames; i++) {
    for (const channel of channels) {
      const s = Math.max(-1, Math.min(1, channel[i] ?? 0));
      buf.writeInt16LE(Math.round(s * 32767), offset);
      offset += 2;
    }
  }
  return buf;
}

/** Synchronous so that a hangup has finalised every file by the time it returns. */
export function writeWav(file: string, audio: WavAudio): void {
  ensurePrivateDir(path.dirname(file));
  writeFileSync(file, encodeWav(audio), { mode: PRIVATE_FILE_MODE });
}

/** Walks the chunks rather than assuming a 44-byte header, so files from other tools decode too. */
export function decodeWav(buf: Buffer): WavAudio {
  if (buf.length < 12 || buf.toString('ascii', 0, 4) !== 'RIFF' || buf.toString('ascii', 8, 12) !== 'WAVE') {
    throw new Error('not a RIFF/WAVE file');
  }
  let fmt: { format: number; channels: number; sampleRate: number; bits: number } | undefined;
  for (let pos = 12; pos + 8 <= buf.length;) {
    const id = buf.toString('ascii', pos, pos + 4);
    const size = buf.readUInt32LE(pos + 4);
    const body = pos + 8;
    if (id === 'fmt ') {
      fmt = { format: buf.readUInt16LE(body), channels: buf.readUInt16LE(body + 2), sampleRate: buf.readUInt32LE(body + 4), bits: buf.readUInt16LE(body + 14) };
    } else if (id === 'data') {
      if (!fmt) throw new Error('WAV data chunk before fmt chunk');
      if (fmt.format !== 1 || fmt.bits !== 16 || fmt.channels < 1) throw new Error(`unsupported WAV encoding (format ${fmt.format}, ${fmt.bits} bits)`);
      const frames = Math.floor((Math.min(buf.length, body + size) - body) / (2 * fmt.channels));
      const channels = Array.from({ length: fmt.channels }, () => new Float32Array(frames));
      for (let i = 0; i < frames; i++) {
        channels.forEach((channel, c) => { channel[i] = buf.readInt16LE(body + 2 * (i * channels.length + c)) / 32767; });
      }
      return { sampleRate: fmt.sampleRate, channels };
    }
    pos = body + size + (size % 2); // chunks are word-aligned
  }
  throw new Error('WAV file has no data chunk');
}

export function wavInfo({ sampleRate, channels }: WavAudio): WavInfo {
  let peak = 0;
  for (const channel of channels) for (const s of channel) peak = Math.max(peak, Math.abs(s));
  return { sampleRate, channels: channels.length, durationMs: ((channels[0]?.length ?? 0) / sampleRate) * 1000, peak };
}

export async function readWav(file: string): Promise<WavAudio> {
  return decodeWav(await readFile(file));
}

export async function readWavInfo(file: string): Promise<WavInfo> {
  return wavInfo(await readWav(file));
}
