// The OpenAI-compatible speech adapter alone: OpenAI's streamed WAV (sizes unknown, 24 kHz, two channels) is written
// as a plain mono WAV of the right length; a body that is not audio, or a WAV it cannot read, is the endpoint's error.
import t from 'tap';
import { mkdtempSync, readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { renderSpeech, SpeechEndpointError } from '../../src/speech/openai-speech.js';
import { createGuardedClient } from '../../src/net/guarded-client.js';
import { decodeWav } from '../../src/media/wav.js';
import { startSpeechEndpoint } from '../helpers/speech-endpoint.js';
import { bestToneShare } from '../helpers/tone.js';

t.test('a streamed WAV becomes a plain mono file; what is not audio is refused', async (t) => {
  const tts = await startSpeechEndpoint(t);
  const client = createGuardedClient({ allowLoopback: true, requireHttps: false });
  t.teardown(() => client.close());
  const dir = mkdtempSync(path.join(os.tmpdir(), 'speech-'));
  const endpoint = { baseUrl: `${tts.url}/`, model: 'kokoro', apiKey: null };
  const file = path.join(dir, 'a.wav');
  await renderSpeech(client, endpoint, { text: 'Hello', voice: 'alloy' }, file);
  const wav = readFileSync(file);
  t.equal(wav.readUInt32LE(4), wav.length - 8, 'the RIFF size is true');
  const audio = decodeWav(wav);
  t.equal(audio.channels.length, 1, 'mono');
  t.equal(audio.sampleRate, 24_000, 'at the rate it came in');
  t.equal(audio.channels[0]!.length, 36_000, 'all 1.5 s of it');
  const at8k = audio.channels[0]!.filter((_, i) => i % 3 === 0);
  t.ok(bestToneShare(at8k, 1200) > 0.9, "alloy's tone");
  t.same(tts.calls[0], { path: '/v1/audio/speech', authorization: undefined, contentType: 'application/json', body: { model: 'kokoro', input: 'Hello', voice: 'alloy', response_format: 'wav' } }, 'no key: no authorization header');

  for (const [answer, why] of [
    [{ status: 200, headers: { 'content-type': 'text/html' }, body: '<html>hi</html>' }, /without audio/],
    [{ status: 200, headers: { 'content-type': 'audio/wav' }, body: Buffer.concat([Buffer.from('RIFF\0\0\0\0WAVEfmt '), Buffer.alloc(8)]) }, /WAV could not be read/],
    [{ status: 429, body: '{}' }, /answered 429/],
  ] as const) {
    tts.answer = () => answer;
    const err = await renderSpeech(client, endpoint, { text: 'Hello', voice: 'alloy' }, path.join(dir, 'b.wav')).catch((e: Error) => e);
    t.ok(err instanceof SpeechEndpointError && why.test(err.message), String(err));
  }
});
