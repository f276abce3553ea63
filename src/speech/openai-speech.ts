// Speech from any OpenAI-compatible speech endpoint (`POST {base}/audio/speech`, as OpenAI and local Kokoro or Piper
// servers serve it): the text, the voice and the model go as JSON asking for WAV; the audio that comes back (WAV, or
// MP3 from a server that ignores the format asked for) is written as a mono 16-bit WAV the engines play as a file.
// The text leaves the machine for that endpoint (docs/speech.md, Privacy).
import { writeFile } from 'node:fs/promises';
import { audioFormatOf } from '../media/audio-format.js';
import { mp3ToWav } from '../media/transcode.js';
import { decodeWav, downmix, encodeWav } from '../media/wav.js';
import type { GuardedClient } from '../net/index.js';
import { postToEndpoint, type EndpointFailure, type OpenAiEndpoint } from './openai-endpoint.js';

/** A caller hears silence while a first-time prompt renders: past this the prompt is spoken in the built-in voice. */
export const SPEECH_TIMEOUT_MS = 5_000;
/** A Say is at most 4096 characters: a few minutes of audio. */
const MAX_AUDIO_BYTES = 16 * 1024 * 1024;

export class SpeechEndpointError extends Error {
  constructor(readonly reason: EndpointFailure, message: string) { super(message); }
}

export interface SpeechRequest { text: string; voice: string }

/** Renders `text` in `voice` to `file` (a .wav path); rejects with SpeechEndpointError. */
export async function renderSpeech(
  client: GuardedClient, endpoint: OpenAiEndpoint, req: SpeechRequest, file: string,
): Promise<void> {
  const { headers, body } = await postToEndpoint(client, endpoint, {
    path: '/audio/speech', contentType: 'application/json',
    body: Buffer.from(JSON.stringify({ model: endpoint.model, input: req.text, voice: req.voice, response_format: 'wav' })),
    timeoutMs: SPEECH_TIMEOUT_MS, maxResponseBytes: MAX_AUDIO_BYTES,
  }, 'speech', (reason, message) => new SpeechEndpointError(reason, message));
  const type = headers['content-type'];
  const format = audioFormatOf(Array.isArray(type) ? type[0] : type, body);
  if (!format.ok) throw new SpeechEndpointError('refused', `the speech endpoint answered without audio: ${format.reason}`);
  await writeFile(file, await monoWav(format.format, body), { mode: 0o600 });
}

/**
 * One channel of 16-bit samples with a true length. OpenAI streams its WAV with the sizes unknown (0xFFFFFFFF), which
 * file readers take differently; decoding and writing it again gives every engine the same plain file.
 */
async function monoWav(format: 'wav' | 'mp3', body: Buffer): Promise<Buffer> {
  if (format === 'mp3') {
    const wav = await mp3ToWav(body, MAX_AUDIO_BYTES * 8);
    if (!wav.ok) throw new SpeechEndpointError('refused', `the speech endpoint's MP3 could not be decoded: ${wav.reason}`);
    return wav.wav;
  }
  let audio;
  try {
    audio = decodeWav(body);
  } catch (err) {
    throw new SpeechEndpointError('refused', `the speech endpoint's WAV could not be read: ${(err as Error).message}`);
  }
  const mono = downmix(audio.channels);
  if (mono.length === 0) throw new SpeechEndpointError('refused', 'the speech endpoint answered with no audio');
  return encodeWav({ sampleRate: audio.sampleRate, channels: [mono] });
}
