// Minimal RIFF/WAVE PCM 16-bit codec: enough for sandbox recordings and transcoded media to be real, playable files, and for
// tests (and later the recordings API) to inspect them without an audio library.
import { closeSync, fstatSync, openSync, readSync, writeFileSync } from 'node:fs';
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

/** Where a WAV file's audio lies, read from its first bytes: what the header says, not what the file holds. */
export interface WavLayout { byteRate: number; channels: number; dataAt: number; declaredDataBytes: number }

/** The layout from a file's first bytes (the fmt and data chunk headers), or null when they are not a WAV's. */
export function wavLayout(head: Buffer): WavLayout | null {
  if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') return null;
  let fmt: { byteRate: number; channels: number } | null = null;
  for (let at = 12; at + 8 <= head.length;) {
    const id = head.toString('ascii', at, at + 4);
    const size = head.readUInt32LE(at + 4);
    if (id === 'fmt ' && at + 24 <= head.length) fmt = { channels: head.readUInt16LE(at + 10), byteRate: head.readUInt32LE(at + 16) };
    if (id === 'data') return fmt && fmt.byteRate > 0 ? { ...fmt, dataAt: at + 8, declaredDataBytes: size } : null;
    at += 8 + size + (size % 2);
  }
  return null;
}

/** An open WAV file's size, first bytes and layout (its header only). */
export function readWavHead(fd: number): { size: number; head: Buffer; layout: WavLayout | null } {
  const size = fstatSync(fd).size;
  const head = Buffer.alloc(Math.min(size, 4096));
  readSync(fd, head, 0, head.length, 0);
  return { size, head, layout: wavLayout(head) };
}

/**
 * How much audio a WAV file holds (its bytes after the data chunk's header; a header written before the last
 * samples may say less), read from the header and the file's size alone: a call recording can last hours. Null
 * when the file is missing or not a WAV.
 */
export function wavFileAudio(file: string): { durationMs: number; channels: number } | null {
  let fd: number;
  try {
    fd = openSync(file, 'r');
  } catch {
    return null;
  }
  try {
    const { size, layout } = readWavHead(fd);
    if (!layout) return null;
    return { durationMs: Math.round((Math.max(0, size - layout.dataAt) / layout.byteRate) * 1000), channels: layout.channels };
  } finally {
    closeSync(fd);
  }
}

/** The channels' average: one channel of `length` samples (all of them by default). */
export function downmix(channels: readonly Float32Array[], length = channels[0]?.length ?? 0): Float32Array {
  const mono = new Float32Array(length);
  for (const channel of channels) for (let i = 0; i < length; i++) mono[i]! += channel[i]! / channels.length;
  return mono;
}
