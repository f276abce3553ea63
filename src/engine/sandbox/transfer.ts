// The simulated far end asking for a blind transfer (what a PBX or phone does with SIP REFER): the platform's
// answer and its reports are what a test reads back.
import type { TransferAsked, TransferReport } from '../port.js';
import type { Line } from './line.js';

/** How the platform answered: 202 or 603 (null: the call ended first), and the statuses it reported, in order. */
export interface TransferResult { referStatus: 202 | 603 | null; reports: number[] }

export function askTransfer(line: Line, target: string, referredBy: string | null): Promise<TransferResult> {
  return new Promise((resolve) => {
    const reports: number[] = [];
    let referStatus: TransferResult['referStatus'] = null;
    const settle = () => resolve({ referStatus, reports });
    const answer = (status: 202 | 603): boolean => {
      if (referStatus !== null || line.isEnded) return false;
      referStatus = status;
      line.transcript.add({ type: 'transfer-answered', status });
      return true;
    };
    const report: TransferReport = async (status) => {
      if (line.isEnded || reports.at(-1) !== 100) return;
      reports.push(status);
      line.transcript.add({ type: 'transfer-reported', status });
      settle();
    };
    const asked: TransferAsked = {
      target,
      referredBy,
      accept: async () => {
        if (answer(202)) reports.push(100);
        return report;
      },
      decline: () => { if (answer(603)) settle(); },
    };
    void line.ended.then(settle);
    line.transcript.add({ type: 'transfer-asked', to: target });
    if (!line.transferAsked(asked)) asked.decline();
  });
}
