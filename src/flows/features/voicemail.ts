import type { CallSession } from '../../calls/session.js';
import { recordMessage } from '../../calls/record-message.js';
import { PLATFORM_VOICE } from '../../calls/platform-voice.js';

export const VOICEMAIL_GREETING = 'Please leave a message after the tone. Press pound when you are finished.';
export const VOICEMAIL_THANKS = 'Thank you. Goodbye.';

/** The platform's voicemail box: greeting, beep, message (up to 2 minutes), thanks, hang up. */
export async function voicemail(session: CallSession, callbackUrl: string | null): Promise<void> {
  const leg = await session.answer();
  await leg.say(VOICEMAIL_GREETING, PLATFORM_VOICE);
  if (leg.isEnded) return;
  await recordMessage(session, { maxLengthMs: 120_000, silenceTimeoutMs: 5_000, finishOnKey: '#', beep: true, source: 'voicemail', callbackUrl });
  if (!leg.isEnded) await leg.say(VOICEMAIL_THANKS, PLATFORM_VOICE);
  await session.hangup('voicemail-done');
}
