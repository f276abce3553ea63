// <Refer> on the real engine: REFER inside the far end's dialog, then its NOTIFYs (RFC 3515: each carries the
// transfer's progress as a message/sipfrag status line) until a final status, the leg's end, or a bound.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { HangupInfo, ReferOutcome } from '../port.js';
import { settledWithin } from '../../waits.js';

/** How long the far end may take to report the transfer's final status (its target ringing included). */
const NOTIFY_WAIT_MS = 30_000;

interface Notify { body?: string; get(name: string): string | undefined }

export async function referOut(dialog: Srf.Dialog, target: string, ended: Promise<HangupInfo>, log: Logger): Promise<ReferOutcome> {
  let referStatus: number | null = null;
  let notifyStatus: number | null = null;
  let settle!: () => void;
  const final = new Promise<void>((resolve) => { settle = resolve; });
  const onNotify = (req: Notify, res: { send(status: number): void }) => {
    res.send(200);
    const status = /^SIP\/2\.0\s+(\d{3})/m.exec(req.body ?? '');
    if (status) notifyStatus = Number(status[1]);
    if ((notifyStatus ?? 0) >= 200 || /terminated/i.test(req.get('Subscription-State') ?? '')) settle();
  };
  const d = dialog as unknown as { on(e: 'notify', l: typeof onNotify): void; off(e: 'notify', l: typeof onNotify): void; request(o: object): Promise<{ status: number }> };
  d.on('notify', onNotify);
  try {
    const res = await d.request({ method: 'REFER', headers: { 'Refer-To': `<${target}>` } });
    referStatus = res.status;
    if (res.status >= 200 && res.status < 300) {
      await settledWithin(Promise.race([final, ended]), NOTIFY_WAIT_MS);
    }
  } catch (err) {
    log.warn({ err: (err as Error).message }, 'REFER not sent');
  } finally {
    d.off('notify', onNotify);
  }
  return { referStatus, notifyStatus };
}
