// The sandbox's recognizer: a simulated far end's words come back exactly as it said them (src/engine/sandbox/
// spoken-text.ts), with full confidence. It answers only for audio the sandbox made.
import { spokenText } from '../engine/sandbox/spoken-text.js';
import type { Recognition, RecognitionRequest, Recognizer } from './recognizer.js';

export const sandboxRecognizer: Recognizer = {
  name: 'sandbox',
  async recognize(req: RecognitionRequest): Promise<Recognition> {
    const text = spokenText(req.utterance.frames) ?? '';
    return { text, confidence: text === '' ? null : 1 };
  },
};

/** Whether the utterance was said by a simulated call (so only the sandbox's recognizer knows its words). */
export const simulatedUtterance = (req: Pick<RecognitionRequest, 'utterance'>): boolean => spokenText(req.utterance.frames) !== null;
