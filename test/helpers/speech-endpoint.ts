// A stand-in OpenAI-compatible speech endpoint on 127.0.0.1 (POST /v1/audio/speech): it keeps each request (path,
// bearer token, content type, JSON body) so tests check what the platform sends, and answers as a test scripts it:
// by default, as OpenAI does, a WAV streamed with its sizes unknown (0xFFFFFFFF) at 24 kHz, here a pure tone per
// voice so a caller can tell which voice spoke.
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { encodeWav } from '../../src/media/wav.js';

export interface SpeechCall { path: string; authorization: string | undefined; contentType: string | undefined; body: Record<string, unknown> }
export type SpeechAnswer = { status: number; headers?: Record<string, string>; body: Buffer | string } | 'hang';

export interface SpeechEndpoint {
  /** Up to the API version: http://127.0.0.1:<port>/v1 */
  url: string;
  calls: SpeechCall[];
  answer: (call: SpeechCall) => SpeechAnswer;
}

/** Each voice's tone: what a caller hears when that voice speaks. */
export const VOICE_TONES: Record<string, number> = { alloy: 1200, nova: 700 };

/** `seconds` of `hz` at 24 kHz in two channels, its RIFF and data sizes unknown, as OpenAI's streamed WAV. */
export function streamedWav(hz: number, seconds = 1.5): Buffer {
  const tone = new Float32Array(24_000 * seconds).map((_, i) => 0.5 * Math.sin((2 * Math.PI * hz * i) / 24_000));
  const wav = encodeWav({ sampleRate: 24_000, channels: [tone, tone] });
  wav.writeUInt32LE(0xffffffff, 4);
  wav.writeUInt32LE(0xffffffff, 40);
  return wav;
}

export const toneAnswer = (call: SpeechCall): SpeechAnswer =>
  ({ status: 200, headers: { 'content-type': 'audio/wav' }, body: streamedWav(VOICE_TONES[String(call.body.voice)] ?? 440) });

export async function startSpeechEndpoint(t: { teardown(fn: () => unknown): void }): Promise<SpeechEndpoint> {
  const endpoint: SpeechEndpoint = { url: '', calls: [], answer: toneAnswer };
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c)).on('end', () => {
      let body: Record<string, unknown> = {};
      try { body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>; } catch { /* kept empty: the test sees it */ }
      const call = { path: req.url ?? '', authorization: req.headers.authorization, contentType: req.headers['content-type'], body };
      endpoint.calls.push(call);
      const answer = endpoint.answer(call);
      if (answer === 'hang') return;
      res.writeHead(answer.status, answer.headers ?? { 'content-type': 'application/json' }).end(answer.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  endpoint.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  return endpoint;
}
