// SIP statuses and FreeSWITCH (Q.850) hangup causes, normalised to the port's HangupCause so the control plane
// can turn them into call statuses without knowing about SIP.
import type { AttemptFailure, HangupCause } from '../port.js';

/** A final non-2xx answer to an outbound INVITE. 487 means the attempt was withdrawn (by us). */
export function causeOfSipStatus(status: number): AttemptFailure {
  if (status === 486 || status === 600) return 'busy';
  if (status === 408 || status === 480) return 'no-answer';
  if (status === 487) return 'canceled';
  if (status === 603 || status === 403) return 'rejected';
  return 'failed';
}

/** How the rejection reasons the control plane uses look on the wire. */
export const REJECT_STATUS = { busy: 486, rejected: 603, unavailable: 480 } as const;

export function causeOfQ850(cause: string | undefined): HangupCause {
  switch (cause) {
    case undefined:
    case 'NORMAL_CLEARING':
    case 'NORMAL_UNSPECIFIED':
      return 'normal';
    case 'USER_BUSY': return 'busy';
    case 'NO_ANSWER':
    case 'NO_USER_RESPONSE':
    case 'ALLOTTED_TIMEOUT':
      return 'no-answer';
    case 'CALL_REJECTED': return 'rejected';
    case 'ORIGINATOR_CANCEL': return 'caller-hangup';
    // FreeSWITCH hangs up every channel with this when it shuts down (SIGTERM, `fsctl shutdown`).
    case 'SYSTEM_SHUTDOWN':
    case 'CRASH':
      return 'media-server-lost';
    default: return 'failed';
  }
}
