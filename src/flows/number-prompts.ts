// The sentences a number's own settings make the platform say (its IVR menu, the voicemail and queue phrases its
// keys and after-hours action lead to), so saving the settings can render them before the first caller hears them.
import type { NumberSettings } from '../numbers/settings.js';
import type { PromptCache } from '../media/prompt-cache.js';
import { IVR_GOODBYE, IVR_INVALID } from './features/ivr.js';
import { QUEUE_GIVE_UP, QUEUE_GREETING } from './features/queue.js';
import { VOICEMAIL_GREETING, VOICEMAIL_THANKS } from './features/voicemail.js';
import { APPLICATION_ERROR_MESSAGE } from './flow.js';
import { PLATFORM_VOICE } from '../calls/platform-voice.js';

export function numberPrompts(settings: NumberSettings): string[] {
  const texts = new Set<string>([APPLICATION_ERROR_MESSAGE]);
  const actions: string[] = [settings.after_hours.action];
  if (settings.ivr?.enabled) {
    texts.add(settings.ivr.prompt).add(IVR_INVALID).add(IVR_GOODBYE);
    actions.push(...Object.values(settings.ivr.keys).map((k) => k.action));
  }
  if (actions.includes('voicemail')) texts.add(VOICEMAIL_GREETING).add(VOICEMAIL_THANKS);
  if (actions.includes('queue')) texts.add(QUEUE_GREETING).add(QUEUE_GIVE_UP);
  return [...texts];
}

/** Renders them one after another in the background (each render is a real-time synthesis on the media server). */
export function prerenderNumberPrompts(prompts: PromptCache | null, settings: NumberSettings): Promise<void> {
  if (!prompts) return Promise.resolve();
  return numberPrompts(settings).reduce<Promise<unknown>>((prev, text) => prev.then(() => prompts.prepare(text, PLATFORM_VOICE.voice)), Promise.resolve())
    .then(() => undefined);
}
