// A TLS carrier's SRTP media for a tone phone (srtp-relay-worker.mjs): FreeSWITCH's SRTP decrypted for the phone
// to hear, the phone's RTP encrypted for FreeSWITCH. The phone's measurements then prove audio that went over SRTP.
import { Worker } from 'node:worker_threads';

export interface RelayStats {
  /** SRTP packets from FreeSWITCH; those whose tag checked and were decrypted; those refused. */
  srtpIn: number; decrypted: number; refused: number;
  /** RTP packets from the phone, and the SRTP packets made of them sent to FreeSWITCH. */
  rtpFromPhone: number; srtpOut: number;
  /** Where FreeSWITCH's SRTP comes from. */
  peer: string | null;
}

export interface SrtpRelay { stats(): Promise<RelayStats>; close(): void }

/** Relays on `port` (the SDP answer's) between FreeSWITCH (its key `theirKey`) and the phone on `phonePort` (ours `ourKey`). */
export async function srtpRelay(port: number, phonePort: number, theirKey: string, ourKey: string): Promise<SrtpRelay> {
  const worker = new Worker(new URL('./srtp-relay-worker.mjs', import.meta.url), { workerData: { port, phonePort, theirKey, ourKey }, execArgv: [] });
  await new Promise<void>((resolve, reject) => {
    worker.once('message', () => resolve());
    worker.once('error', reject);
  });
  let closed = false;
  return {
    stats: () => new Promise((resolve) => {
      worker.once('message', (m: RelayStats) => resolve(m));
      worker.postMessage('report');
    }),
    close: () => {
      if (closed) return;
      closed = true;
      worker.postMessage('close');
    },
  };
}
