// The OpenAI-compatible transcription adapter against a local stand-in server that checks the request as the real
// API reads it (a multipart form with the WAV file, model, language and prompt; the bearer key) and answers as the
// API does ({"text": …}). A server that answers 4xx or 5xx, says nothing useful, or takes too long gives a
// RecognizerError with its reason, never a hang.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import t, { type Test } from 'tap';
import { createGuardedClient } from '../../src/net/guarded-client.js';
import { openAiTranscription, TRANSCRIPTION_TIMEOUT_MS } from '../../src/speech/openai-transcription.js';
import { RecognizerError, type RecognitionRequest } from '../../src/speech/recognizer.js';
import { decodeWav } from '../../src/media/wav.js';

interface Part { name: string; filename?: string; type?: string; data: Buffer }

/** The parts of a multipart/form-data body, as a server would read them. */
function parts(body: Buffer, contentType: string): Part[] {
  const boundary = /boundary=([^;]+)/.exec(contentType)![1]!;
  const text = body.toString('latin1');
  return text.split(`--${boundary}`).slice(1, -1).map((chunk) => {
    const [head, ...rest] = chunk.replace(/^\r\n/, '').split('\r\n\r\n');
    const data = Buffer.from(rest.join('\r\n\r\n').replace(/\r\n$/, ''), 'latin1');
    return {
      name: /name="([^"]+)"/.exec(head!)![1]!,
      ...(/filename="([^"]+)"/.test(head!) ? { filename: /filename="([^"]+)"/.exec(head!)![1]! } : {}),
      ...(/Content-Type: (\S+)/i.test(head!) ? { type: /Content-Type: (\S+)/i.exec(head!)![1]! } : {}),
      data,
    };
  });
}

async function standIn(t: Test, answer: (req: IncomingMessage, body: Buffer) => { status: number; body: string; delayMs?: number }) {
  const seen: Array<{ path: string; headers: IncomingMessage['headers']; parts: Part[] }> = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      seen.push({ path: req.url!, headers: req.headers, parts: parts(body, req.headers['content-type'] ?? '') });
      const a = answer(req, body);
      setTimeout(() => { res.writeHead(a.status, { 'content-type': 'application/json' }).end(a.body); }, a.delayMs ?? 0);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }));
  return { base: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`, seen };
}

const client = createGuardedClient({ allowLoopback: true, requireHttps: false });
t.teardown(() => client.close());
/** Half a second of µ-law frames. */
const frames = Array.from({ length: 25 }, () => Buffer.alloc(160, 0x7f));
const request = (over: Partial<RecognitionRequest> = {}): RecognitionRequest =>
  ({ utterance: { frames }, hints: ['sales', 'support'], language: 'en-US', model: null, signal: new AbortController().signal, ...over });

t.test('the request is the API\'s multipart form with the key; the answer\'s text comes back', async (t) => {
  const server = await standIn(t, () => ({ status: 200, body: JSON.stringify({ text: ' Support. ' }) }));
  const recognizer = openAiTranscription(client, { baseUrl: server.base, model: 'whisper-1', apiKey: 'sk-test-123' });
  t.same(await recognizer.recognize(request()), { text: 'Support.', confidence: null });
  const [seen] = server.seen;
  t.equal(seen!.path, '/v1/audio/transcriptions');
  t.equal(seen!.headers.authorization, 'Bearer sk-test-123');
  t.match(seen!.headers['content-type'], /^multipart\/form-data; boundary=/);
  const byName = new Map(seen!.parts.map((p) => [p.name, p]));
  t.equal(byName.get('model')!.data.toString(), 'whisper-1');
  t.equal(byName.get('language')!.data.toString(), 'en', 'ISO 639-1');
  t.equal(byName.get('prompt')!.data.toString(), 'sales, support', 'the hints as the prompt');
  t.equal(byName.get('response_format')!.data.toString(), 'json');
  const file = byName.get('file')!;
  t.match(file, { filename: 'utterance.wav', type: 'audio/wav' });
  const wav = decodeWav(file.data);
  t.equal(wav.sampleRate, 8000);
  t.equal(wav.channels[0]!.length, 25 * 160, 'every sample of the utterance');
  await recognizer.recognize(request({ model: 'large-v3', hints: [] }));
  const second = new Map(server.seen[1]!.parts.map((p) => [p.name, p.data.toString()]));
  t.equal(second.get('model'), 'large-v3', "a Gather's speechModel replaces the endpoint's model");
  t.notOk(second.has('prompt'), 'no prompt without hints');
});

t.test('a local server without a key: no authorization header', async (t) => {
  const server = await standIn(t, () => ({ status: 200, body: JSON.stringify({ text: 'billing' }) }));
  await openAiTranscription(client, { baseUrl: `${server.base}/`, model: 'base.en', apiKey: null }).recognize(request());
  t.equal(server.seen[0]!.headers.authorization, undefined);
  t.equal(server.seen[0]!.path, '/v1/audio/transcriptions', 'a trailing slash on the base URL is fine');
});

t.test('4xx, 5xx, a malformed answer, a slow server and a refused host each reject with their reason', async (t) => {
  for (const [answer, reason, message] of [
    [{ status: 401, body: '{"error":{"message":"Incorrect API key"}}' }, 'refused', /answered 401/],
    [{ status: 503, body: 'overloaded' }, 'refused', /answered 503/],
    [{ status: 200, body: '{"transcript":"x"}' }, 'refused', /without a text field/],
    [{ status: 200, body: 'not json' }, 'refused', /without a text field/],
    [{ status: 200, body: '{"text":"late"}', delayMs: TRANSCRIPTION_TIMEOUT_MS + 1_000 }, 'timeout', /did not answer within 10 s/],
  ] as const) {
    const server = await standIn(t, () => answer);
    const started = Date.now();
    const err = await openAiTranscription(client, { baseUrl: server.base, model: 'whisper-1', apiKey: 'k' }).recognize(request()).catch((e: unknown) => e);
    t.ok(err instanceof RecognizerError, `${answer.status}: a RecognizerError`);
    t.match(err, { reason, message }, `${answer.status} ${answer.body.slice(0, 20)}`);
    if (reason === 'timeout') t.ok(Date.now() - started < TRANSCRIPTION_TIMEOUT_MS + 900, 'given up at the time limit');
  }
  const strict = createGuardedClient({ allowLoopback: false });
  t.teardown(() => strict.close());
  const err = await openAiTranscription(strict, { baseUrl: 'https://127.0.0.1/v1', model: 'whisper-1', apiKey: 'k' }).recognize(request()).catch((e: unknown) => e);
  t.match(err, { reason: 'unavailable', message: /refused/ }, 'an address the target policy refuses is never asked');
});
