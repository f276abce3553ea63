// The recognizer port (docs/speech.md): what a speech <Gather> hands a recognizer once the caller has stopped
// speaking, and what comes back. Adapters: the offline default (pocketsphinx.ts), any OpenAI-compatible
// transcription endpoint (openai-transcription.ts), and the sandbox's (src/engine/sandbox/spoken-text.ts).

/** What the caller said: the call's audio tap frames (20 ms of 8 kHz µ-law each) from just before speech began to its end. */
export interface Utterance { frames: Buffer[] }

export interface RecognitionRequest {
  utterance: Utterance;
  /** Words and phrases the caller is likely to say (<Gather hints>), each trimmed; empty when none was given. */
  hints: string[];
  /** BCP 47, as <Gather language> gives it. */
  language: string;
  /** <Gather speechModel>, for adapters that pick a model by name; null when not given. */
  model: string | null;
  /** Aborted when the answer is no longer wanted (the caller hung up, the time allowed ran out). */
  signal: AbortSignal;
}

export interface Recognition {
  /** The words heard; '' when nothing was recognized. */
  text: string;
  /** 0 to 1, as Twilio's Confidence; null when the recognizer gives none. */
  confidence: number | null;
}

export interface Recognizer {
  /** Names the adapter on the call's timeline (`pocketsphinx`, `openai-compatible`, `sandbox`). */
  readonly name: string;
  /** Rejects with RecognizerError; never hangs past the request's signal. */
  recognize(req: RecognitionRequest): Promise<Recognition>;
}

/**
 * Why no words came back. `unavailable`: the recognizer is not configured or installed here (a setup problem);
 * `timeout`: it took longer than allowed; `refused`: it answered with an error (a 4xx or 5xx, a malformed answer).
 */
export class RecognizerError extends Error {
  constructor(readonly reason: 'unavailable' | 'timeout' | 'refused', message: string) { super(message); }
}
