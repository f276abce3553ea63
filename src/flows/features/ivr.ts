import type { IvrMenu } from '../../numbers/settings.js';
import type { CallSession } from '../../calls/session.js';
import { voicemail } from './voicemail.js';
import { forward } from './forward.js';
import { enqueue } from './queue.js';
import { PLATFORM_VOICE } from '../../calls/platform-voice.js';
import type { AcdService } from '../../acd/service.js';

export const IVR_INVALID = 'Sorry, that is not a valid choice.';
export const IVR_GOODBYE = 'Goodbye.';
const MAX_ROUNDS = 3;

/** The number's one-level menu: prompt, one key, its action; silence or a wrong key replays (3 rounds). */
export async function runIvr(session: CallSession, menu: IvrMenu, recordingCallback: string | null, acd: AcdService): Promise<void> {
  const leg = await session.answer();
  for (let round = 0; round < MAX_ROUNDS && !leg.isEnded; round++) {
    const { digits } = await leg.collectDigits({
      prompts: [{ kind: 'say', text: menu.prompt, ...PLATFORM_VOICE }], numDigits: 1, timeoutMs: menu.timeout_seconds * 1000, finishOnKey: '',
    });
    session.timeline('ivr-key', { key: digits || null, round });
    if (leg.isEnded) return;
    const action = digits ? menu.keys[digits] : undefined;
    if (!action) {
      if (digits) await leg.say(IVR_INVALID, PLATFORM_VOICE);
      continue;
    }
    switch (action.action) {
      case 'replay': round = -1; continue;
      case 'hangup': await leg.say(IVR_GOODBYE, PLATFORM_VOICE); return session.hangup('ivr-hangup');
      case 'voicemail': return voicemail(session, recordingCallback);
      case 'forward': return forward(session, action.number);
      case 'queue': return enqueue(acd, session, action.queue);
    }
  }
  if (!leg.isEnded) await leg.say(IVR_GOODBYE, PLATFORM_VOICE);
  await session.hangup('ivr-no-input');
}
