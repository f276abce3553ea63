// Which recognizer hears an utterance: the sandbox's for audio a simulated call made (simulated calls run beside a
// real engine too); else the account's OpenAI-compatible endpoint when it set one; else the offline default when
// it is installed. With none, recognition fails with a configuration error the call's timeline shows.
import type { SecretBox } from '../crypto/secret-box.js';
import type { GuardedClient } from '../net/index.js';
import { openedKey } from './endpoint-key.js';
import { openAiTranscription } from './openai-transcription.js';
import { RecognizerError, type Recognition, type RecognitionRequest, type Recognizer } from './recognizer.js';
import { sandboxRecognizer, simulatedUtterance } from './sandbox-recognizer.js';
import type { SpeechSettingsRepo } from './settings.js';

export interface SpeechRecognition {
  /** The offline recognizer installed on this control plane ('pocketsphinx'), or null. */
  readonly offline: string | null;
  /** What was said, and which recognizer heard it; rejects with RecognizerError. */
  recognize(accountId: number, req: RecognitionRequest): Promise<Recognition & { recognizer: string }>;
}

export const NO_RECOGNIZER = 'no speech recognizer is set up: install pocketsphinx and pocketsphinx-en-us on the control plane, or give the account an OpenAI-compatible transcription endpoint (docs/speech.md)';

export function speechRecognition(deps: { offline: Recognizer | null; accountVendor: (accountId: number) => Promise<Recognizer | null> }): SpeechRecognition {
  return {
    offline: deps.offline?.name ?? null,
    async recognize(accountId, req) {
      const recognizer = simulatedUtterance(req) ? sandboxRecognizer : (await deps.accountVendor(accountId)) ?? deps.offline;
      if (!recognizer) throw new RecognizerError('unavailable', NO_RECOGNIZER);
      return { ...(await recognizer.recognize(req)), recognizer: recognizer.name };
    },
  };
}

/** The account's OpenAI-compatible endpoint as a recognizer (its key unsealed for the request), or null when it set none. */
export function accountTranscription(settings: SpeechSettingsRepo, secrets: SecretBox, client: GuardedClient): (accountId: number) => Promise<Recognizer | null> {
  return async (accountId) => {
    const s = await settings.transcription(accountId);
    return s && openAiTranscription(client, { baseUrl: s.baseUrl, model: s.model, apiKey: openedKey(secrets, s.keySealed) });
  };
}
