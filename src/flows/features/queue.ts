import type { CallSession } from '../../calls/session.js';
import { PLATFORM_VOICE } from '../../calls/platform-voice.js';
import type { AcdService } from '../../acd/service.js';

export const QUEUE_GREETING = 'All of our agents are busy. Please hold.';
export const QUEUE_GIVE_UP = 'Sorry, nobody is available to take your call. Goodbye.';

/**
 * The IVR's queue key: the caller hears the greeting and waits in the named ACD queue (the <Enqueue> of
 * src/acd/service.ts); a caller nobody took before the queue's maximum wait hears the apology.
 */
export async function enqueue(acd: AcdService, session: CallSession, queue: string): Promise<void> {
  const leg = await session.answer();
  await leg.say(QUEUE_GREETING, PLATFORM_VOICE);
  if (leg.isEnded) return;
  const outcome = await acd.wait(session, { queue });
  if (session.ended) return;
  if (outcome.result !== 'bridged') await leg.say(QUEUE_GIVE_UP, PLATFORM_VOICE);
  await session.hangup(outcome.result === 'bridged' ? 'hangup' : 'queue-timeout');
}
