import { openSync, writeSync, closeSync } from 'node:fs';
import { readWavHead } from '../media/wav.js';

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
    const { size, head, layout } = readWavHead(fd);
    const dataBytes = layout ? size - layout.dataAt : 0;
    if (!layout || dataBytes <= 0) return null;
    const repaired = layout.declaredDataBytes !== dataBytes || head.readUInt32LE(4) !== size - 8;
    if (repaired) {
      const riff = Buffer.alloc(4); riff.writeUInt32LE(size - 8);
      const data = Buffer.alloc(4); data.writeUInt32LE(dataBytes);
      writeSync(fd, riff, 0, 4, 4);
      writeSync(fd, data, 0, 4, layout.dataAt - 4);
    }
    return { durationMs: Math.round((dataBytes / layout.byteRate) * 1000), repaired };
  } finally {
    closeSync(fd);
  }
}
