// Recordings into words through the account's recognizer (src/speech/service.ts): the WAV file read, its channels
// mixed and brought to the 8 kHz µ-law frames every recognizer takes (a call recording is two channels, a message
// one; FreeSWITCH writes them at the call's rate).
import { readWav } from '../media/wav.js';
import { encodeUlaw } from '../media/mulaw.js';
import { AUDIO_FRAME_BYTES } from '../engine/port.js';
import type { RecordingTranscriber } from '../calls/transcription.js';
import type { RecordingRecord, TranscriptionResult } from '../store/recordings.js';
import { RecognizerError } from './recognizer.js';
import type { SpeechRecognition } from './service.js';

const TELEPHONE_RATE = 8_000;
/** However short the recording, a recognizer gets this long; longer ones get as long as they last. */
const LEAST_TIME_MS = 15_000;

export function recordingTranscriber(speech: SpeechRecognition): RecordingTranscriber {
  return {
    async transcribe(rec: RecordingRecord): Promise<TranscriptionResult> {
      try {
        const frames = telephoneFrames(await readWav(rec.file));
        const said = await speech.recognize(rec.accountId, {
          utterance: { frames }, hints: [], language: 'en-US', model: null, signal: AbortSignal.timeout(Math.max(LEAST_TIME_MS, frames.length * 20)),
        });
        return { text: said.text };
      } catch (err) {
        if (err instanceof RecognizerError) return { error: err.message };
        return { error: `the recording could not be read: ${(err as Error).message}` };
      }
    },
  };
}

/** The channels mixed, at 8 kHz (each output sample the mean of the input samples it spans), as 20 ms µ-law frames. */
export function telephoneFrames(wav: { sampleRate: number; channels: Float32Array[] }): Buffer[] {
  const length = wav.channels[0]?.length ?? 0;
  const step = wav.sampleRate / TELEPHONE_RATE;
  const out = new Float32Array(Math.floor(length / step));
  for (let i = 0; i < out.length; i++) {
    const from = Math.floor(i * step);
    const to = Math.max(from + 1, Math.floor((i + 1) * step));
    let sum = 0;
    for (const ch of wav.channels) for (let k = from; k < to && k < length; k++) sum += ch[k]!;
    out[i] = sum / ((to - from) * wav.channels.length);
  }
  const bytes = encodeUlaw(out);
  return Array.from({ length: Math.floor(bytes.length / AUDIO_FRAME_BYTES) }, (_, i) => bytes.subarray(i * AUDIO_FRAME_BYTES, (i + 1) * AUDIO_FRAME_BYTES));
}
