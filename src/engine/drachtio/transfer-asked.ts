// A REFER the far end sends in its dialog (a PBX's or phone's transfer button), as the port's TransferAsked: once
// accepted (202), the transfer's progress goes back in NOTIFYs of the implicit subscription (RFC 3515 2.4.4): one
// at once with 100 Trying, a last one with the final status and the subscription terminated.
import type { Logger } from 'pino';
import type Srf from 'drachtio-srf';
import type { TransferAsked, TransferReport } from '../port.js';

export interface ReferRequest { get(name: string): string | undefined }
export interface ReferResponse { send(status: number, callback?: (err?: Error) => void): void }

const REASONS: Record<number, string> = { 100: 'Trying', 200: 'OK', 503: 'Service Unavailable' };

/** The URI of a Refer-To or Referred-By value: inside its angle brackets, else up to its parameters. */
function uriOf(value: string | undefined): string | null {
  if (!value) return null;
  const bracketed = /<([^>]+)>/.exec(value);
  const uri = (bracketed ? bracketed[1]! : value.split(';')[0]!).trim();
  return uri === '' ? null : uri;
}

/** The REFER as a TransferAsked; null (after a 400) when it names no target. */
export function transferAsked(dialog: Srf.Dialog, req: ReferRequest, res: ReferResponse, log: Logger): TransferAsked | null {
  const target = uriOf(req.get('Refer-To'));
  if (!target) {
    res.send(400);
    return null;
  }
  const d = dialog as unknown as { request(o: object): Promise<{ status: number }> };
  const notify = async (status: number, final: boolean) => {
    try {
      await d.request({
        method: 'NOTIFY',
        headers: {
          Event: 'refer',
          'Subscription-State': final ? 'terminated;reason=noresource' : 'active;expires=60',
          'Content-Type': 'message/sipfrag;version=2.0',
        },
        body: `SIP/2.0 ${status} ${REASONS[status] ?? ''}\r\n`,
      });
    } catch (err) {
      log.info({ err: (err as Error).message, status }, 'transfer report (NOTIFY) not delivered');
    }
  };
  let answered = false;
  let reported = false;
  const report: TransferReport = async (status) => {
    if (reported) return;
    reported = true;
    await notify(status, true);
  };
  return {
    target,
    referredBy: uriOf(req.get('Referred-By')),
    async accept() {
      if (!answered) {
        answered = true;
        // The 202 goes out before the first NOTIFY, so the far end never sees a report of a REFER not yet accepted.
        await new Promise<void>((resolve) => res.send(202, () => resolve()));
        await notify(100, false);
      }
      return report;
    },
    decline() {
      if (answered) return;
      answered = true;
      res.send(603);
    },
  };
}
