// FreeSWITCH channels that carry calls, for leak checks: prompt renders (src/engine/drachtio/speech-render.ts) run on
// loopback channels of their own in the background and are not counted.
import { eslApi } from '../../src/engine/drachtio/esl-probe.js';

export async function callChannels(fs: { host: string; port: number; password: string }): Promise<number> {
  const out = await eslApi(fs.host, fs.port, fs.password, 'show channels as json');
  const rows = (JSON.parse(out) as { rows?: Array<{ name?: string }> }).rows ?? [];
  return rows.filter((r) => !(r.name ?? '').startsWith('loopback/')).length;
}
