// The forks (<Start><Stream>) running on each call, by name, so <Stop><Stream name> finds them. A fork ends by
// itself with its call (its audio closes), so entries leave on their own.
import type { CallSession } from '../calls/session.js';
import type { MediaStream } from './media-stream.js';

const running = new WeakMap<CallSession, Map<string, MediaStream>>();

/** Forks one call may run at once (Twilio's limit too): each holds a media server channel and a socket. */
export const MAX_FORKS_PER_CALL = 4;

export function forkCount(session: CallSession): number {
  return running.get(session)?.size ?? 0;
}

export function isForkRunning(session: CallSession, name: string): boolean {
  return running.get(session)?.has(name) ?? false;
}

export function addFork(session: CallSession, name: string, stream: MediaStream): void {
  let forks = running.get(session);
  if (!forks) running.set(session, (forks = new Map()));
  forks.set(name, stream);
  void stream.ended.then(() => { if (forks.get(name) === stream) forks.delete(name); });
}

/** Stops the named fork; false when none of that name runs. */
export async function stopFork(session: CallSession, name: string): Promise<boolean> {
  const stream = running.get(session)?.get(name);
  if (!stream) return false;
  await stream.stop();
  return true;
}
