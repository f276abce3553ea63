import type { CallSession } from '../../calls/session.js';
import { dial } from '../../calls/dial.js';

const FORWARD_TIMEOUT_MS = 30_000;

/** Forwards the caller to a number (after-hours and IVR "forward"); the call ends when that leg does. */
export async function forward(session: CallSession, number: string): Promise<void> {
  const outcome = await dial(session, {
    targets: [{ kind: 'number', number }], callerId: session.call.from, timeoutMs: FORWARD_TIMEOUT_MS, record: 'do-not-record',
  });
  session.timeline('forward-result', { to: number, ...outcome });
  await session.hangup('forward-done');
}
