import { openSync, readSync, writeSync, closeSync, fstatSync } from 'node:fs';

export interface RepairedWav { durationMs: number; repaired: boolean }

/**
 * A WAV whose writer died keeps the sizes its header had when written (often 0): the RIFF and data sizes are
 * set from the file's length so players read all the audio. Returns null when the file holds no audio.
 */
export function repairWavHeader(file: string): RepairedWav | null {
  let fd: number;
  try {
    fd = openSync(file, 'r+');
  } catch {
    return null;
  }
  try {
    const size = fstatSync(fd).size;
    const head = Buffer.alloc(Math.min(size, 4096));
    readSync(fd, head, 0, head.length, 0);
    if (head.length < 12 || head.toString('ascii', 0, 4) !== 'RIFF' || head.toString('ascii', 8, 12) !== 'WAVE') return null;
    let byteRate = 0;
    for (let at = 12; at + 8 <= head.length;) {
      const id = head.toString('ascii', at, at + 4);
      const chunkSize = head.readUInt32LE(at + 4);
      if (id === 'fmt ' && at + 20 <= head.length) byteRate = head.readUInt32LE(at + 16);
      if (id === 'data') {
        const dataBytes = size - (at + 8);
        if (dataBytes <= 0 || byteRate === 0) return null;
        const repaired = chunkSize !== dataBytes || head.readUInt32LE(4) !== size - 8;
        if (repaired) {
          const riff = Buffer.alloc(4); riff.writeUInt32LE(size - 8);
          const data = Buffer.alloc(4); data.writeUInt32LE(dataBytes);
          writeSync(fd, riff, 0, 4, 4);
          writeSync(fd, data, 0, 4, at + 4);
        }
        return { durationMs: Math.round((dataBytes / byteRate) * 1000), repaired };
      }
      at += 8 + chunkSize + (chunkSize % 2);
    }
    return null;
  } finally {
    closeSync(fd);
  }
}
