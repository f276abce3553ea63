import type { CallSession } from '../session.js';
import { emitQueueEvent } from '../../events/acd.js';
import { PLATFORM_VOICE } from '../platform-voice.js';

export const QUEUE_GREETING = 'All of our agents are busy. Please hold.';
export const QUEUE_HOLD = 'Thank you for holding. Your call is important to us.';
export const QUEUE_GIVE_UP = 'Sorry, nobody is available to take your call. Goodbye.';
const HOLD_INTERVAL_MS = 20_000;
export const MAX_QUEUE_WAIT_MS = 10 * 60_000;

/**
 * A caller waiting in a named ACD queue. Agents and queue distribution are not part of the platform yet, so a
 * queued caller holds until they give up (abandoned) or the maximum wait passes (no-agent).
 */
export async function enqueue(session: CallSession, queue: string): Promise<void> {
  const { clock, events } = session.services;
  const leg = await session.answer();
  const started = clock.now();
  const event = (type: 'queued' | 'abandoned' | 'no-agent') => emitQueueEvent(events, type, {
    accountId: session.accountId, callSid: session.sid, from: session.call.from, to: session.call.to,
    queue, waitSeconds: Math.round((clock.now() - started) / 1000),
  });
  session.timeline('queued', { queue });
  event('queued');
  await leg.say(QUEUE_GREETING, PLATFORM_VOICE);
  while (!leg.isEnded && clock.now() - started < MAX_QUEUE_WAIT_MS) {
    await leg.pause(HOLD_INTERVAL_MS);
    if (!leg.isEnded) await leg.say(QUEUE_HOLD, PLATFORM_VOICE);
  }
  if (leg.isEnded) {
    session.timeline('abandoned', { queue });
    event('abandoned');
    return;
  }
  event('no-agent');
  await leg.say(QUEUE_GIVE_UP, PLATFORM_VOICE);
  await session.hangup('queue-timeout');
}
