// A recognizer on any OpenAI-compatible transcription endpoint (`POST {base}/audio/transcriptions`, as OpenAI,
// whisper.cpp's server and faster-whisper servers serve it): the utterance goes as a WAV file in a multipart form
// with the model (a Gather's speechModel replaces the endpoint's), the language and the hints as the prompt; the
// answer's `text` is what was said. The request goes as openai-endpoint.ts sends it. The audio leaves the machine
// for that endpoint (docs/speech.md, Privacy).
import { randomBytes } from 'node:crypto';
import { decodeUlaw } from '../media/mulaw.js';
import { encodeWav } from '../media/wav.js';
import type { GuardedClient } from '../net/index.js';
import { postToEndpoint, type OpenAiEndpoint } from './openai-endpoint.js';
import { RecognizerError, type Recognition, type RecognitionRequest, type Recognizer } from './recognizer.js';

/** The longest a transcription of a short answer may take; a longer recording may take as long as it lasts. */
export const TRANSCRIPTION_TIMEOUT_MS = 10_000;
/** The largest answer read (a transcript of one utterance is a few hundred bytes). */
const MAX_ANSWER_BYTES = 64 * 1024;

export function openAiTranscription(client: GuardedClient, endpoint: OpenAiEndpoint): Recognizer {
  return {
    name: 'openai-compatible',
    async recognize(req: RecognitionRequest): Promise<Recognition> {
      const wav = encodeWav({ sampleRate: 8_000, channels: [decodeUlaw(Buffer.concat(req.utterance.frames))] });
      const form = multipart({
        model: req.model ?? endpoint.model,
        // ISO 639-1, as the API takes it: en-US → en.
        language: req.language.split('-')[0]!.toLowerCase(),
        response_format: 'json',
        ...(req.hints.length > 0 ? { prompt: req.hints.join(', ') } : {}),
      }, { name: 'file', filename: 'utterance.wav', type: 'audio/wav', data: wav });
      const timeoutMs = Math.max(TRANSCRIPTION_TIMEOUT_MS, req.utterance.frames.length * 20);
      const { body } = await postToEndpoint(client, endpoint, {
        path: '/audio/transcriptions', contentType: form.type, body: form.body, timeoutMs, maxResponseBytes: MAX_ANSWER_BYTES,
      }, 'transcription', (reason, message) => new RecognizerError(reason, message));
      const text = textOf(body);
      if (text === null) throw new RecognizerError('refused', 'the transcription endpoint answered without a text field');
      return { text: text.trim(), confidence: null };
    },
  };
}

function textOf(body: Buffer): string | null {
  try {
    const parsed = JSON.parse(body.toString('utf8')) as { text?: unknown };
    return typeof parsed.text === 'string' ? parsed.text : null;
  } catch {
    return null;
  }
}

/** multipart/form-data with text fields and one file. */
function multipart(fields: Record<string, string>, file: { name: string; filename: string; type: string; data: Buffer }): { type: string; body: Buffer } {
  const boundary = `ringbase-${randomBytes(12).toString('hex')}`;
  const parts: Buffer[] = Object.entries(fields).map(([name, value]) =>
    Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`));
  parts.push(Buffer.from(`--${boundary}\r\nContent-Disposition: form-data; name="${file.name}"; filename="${file.filename}"\r\nContent-Type: ${file.type}\r\n\r\n`));
  parts.push(file.data, Buffer.from(`\r\n--${boundary}--\r\n`));
  return { type: `multipart/form-data; boundary=${boundary}`, body: Buffer.concat(parts) };
}
