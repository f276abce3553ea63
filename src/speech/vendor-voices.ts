// The account's vendor voices (src/calls/voices.ts's port): its voice names from its settings, and its speech
// endpoint's audio rendered once per (endpoint, model, voice, text) into the media cache, where the platform's own
// prompts are kept too (src/media/prompt-cache.ts): concurrent first requests render once; later ones play the file.
import { sha256Hex } from '../crypto/tokens.js';
import type { Clock } from '../clock.js';
import type { SecretBox } from '../crypto/secret-box.js';
import type { AccountVoices } from '../calls/voices.js';
import type { MediaCache } from '../media/media-cache.js';
import type { GuardedClient } from '../net/index.js';
import { openedKey } from './endpoint-key.js';
import { renderSpeech, SpeechEndpointError } from './openai-speech.js';
import type { VoiceSetting, VoiceSettingsRepo } from './voice-settings.js';

/**
 * After an endpoint timed out, Says skip it for this long: each caller would otherwise hear the whole timeout's
 * silence before the built-in voice.
 */
export const TIMED_OUT_SKIP_MS = 30_000;

export interface VendorVoiceDeps {
  settings: VoiceSettingsRepo;
  secrets: SecretBox;
  client: GuardedClient;
  media: MediaCache;
  clock: Clock;
}

export function vendorVoices(deps: VendorVoiceDeps): AccountVoices {
  const timedOutAt = new Map<string, number>();
  return {
    async book(accountId) {
      return { vendor: new Set((await deps.settings.get(accountId))?.voices ?? []) };
    },
    async render(accountId, text, voice) {
      const s = await deps.settings.get(accountId);
      if (!s?.voices.includes(voice)) return { ok: false, reason: `"${voice}" is not one of the account's voices (any more)` };
      const endpoint = endpointKey(s);
      const since = timedOutAt.get(endpoint);
      if (since !== undefined && deps.clock.now() - since < TIMED_OUT_SKIP_MS) {
        return { ok: false, reason: `the speech endpoint timed out ${Math.round((deps.clock.now() - since) / 1000)} s ago; it is tried again after ${TIMED_OUT_SKIP_MS / 1000} s` };
      }
      const words = text.replace(/\s+/g, ' ').trim();
      const got = await deps.media.acquireRendered(`voice:${endpoint}:${voice}:${words}`, async (file) => {
        try {
          await renderSpeech(deps.client, { baseUrl: s.baseUrl, model: s.model, apiKey: openedKey(deps.secrets, s.keySealed) }, { text: words, voice }, file);
          timedOutAt.delete(endpoint);
        } catch (err) {
          if (err instanceof SpeechEndpointError && err.reason === 'timeout') timedOutAt.set(endpoint, deps.clock.now());
          throw err;
        }
      });
      return got.ok ? got : { ok: false, reason: got.reason };
    },
  };
}

/** Another endpoint or model is other audio; a new key is not. */
function endpointKey(s: VoiceSetting): string {
  return sha256Hex(`${s.baseUrl}\n${s.model}`).slice(0, 16);
}
