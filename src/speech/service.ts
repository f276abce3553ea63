// Which recognizer hears an utterance: the sandbox's for audio a simulated call made (simulated calls run beside a
// real engine too); else the account's OpenAI-compatible endpoint when it set one; else the offline default when
// it is installed. With none, recognition fails with a configuration error the call's timeline shows.
import { RecognizerError, type Recognition, type RecognitionRequest, type Recognizer } from './recognizer.js';
import { sandboxRecognizer, simulatedUtterance } from './sandbox-recognizer.js';

export interface SpeechRecognition {
  /** What was said, and which recognizer heard it; rejects with RecognizerError. */
  recognize(accountId: number, req: RecognitionRequest): Promise<Recognition & { recognizer: string }>;
}

export const NO_RECOGNIZER = 'no speech recognizer is set up: install pocketsphinx and pocketsphinx-en-us on the control plane, or give the account an OpenAI-compatible transcription endpoint (docs/speech.md)';

export function speechRecognition(deps: { offline: Recognizer | null; accountVendor: (accountId: number) => Promise<Recognizer | null> }): SpeechRecognition {
  return {
    async recognize(accountId, req) {
      const recognizer = simulatedUtterance(req) ? sandboxRecognizer : (await deps.accountVendor(accountId)) ?? deps.offline;
      if (!recognizer) throw new RecognizerError('unavailable', NO_RECOGNIZER);
      return { ...(await recognizer.recognize(req)), recognizer: recognizer.name };
    },
  };
}
