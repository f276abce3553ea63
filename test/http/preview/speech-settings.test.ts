// /v1/speech-settings over HTTPS: which recognizer hears the account's speech gathers, and its OpenAI-compatible
// endpoint. The key is sealed at rest, never shown or logged; the URL meets the customer-URL rule when written; each
// account sees only its own. The stored endpoint is the one a real call's speech goes to, with the key unsealed
// (a local stand-in server checks the bearer token).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import t from 'tap';
import { startPreviewHarness } from './helpers.js';
import { createSecretBox } from '../../../src/crypto/secret-box.js';
import { createGuardedClient } from '../../../src/net/guarded-client.js';
import { accountTranscription } from '../../../src/speech/service.js';

const KEY = 'sk-proj-0123456789abcdef';

t.test('set, show without the key, replace, remove; refused values name their field', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const b = await h.org();
  const v1 = (method: string, path: string, body?: unknown, key = a.key) => h.v1(method, path, { key, ...(body === undefined ? {} : { body }) });
  const offline = (await v1('GET', '/v1/speech-settings')).body;
  t.match(offline, { transcription_url: null, transcription_model: null, transcription_api_key_set: false, date_updated: null });
  t.ok(['pocketsphinx', 'none'].includes(offline.recognizer), `without an endpoint: ${offline.recognizer}`);

  const set = await v1('POST', '/v1/speech-settings', { transcription_url: 'https://api.openai.com/v1', transcription_model: 'whisper-1', transcription_api_key: KEY });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.match(set.body, { recognizer: 'openai-compatible', transcription_url: 'https://api.openai.com/v1', transcription_model: 'whisper-1', transcription_api_key_set: true });
  t.notMatch(JSON.stringify(set.body), KEY, 'the key is never shown');
  const row = await h.store.sql.one<{ transcription_key_sealed: string }>('SELECT transcription_key_sealed FROM speech_settings WHERE account_id = ?', [a.id]);
  t.notMatch(row!.transcription_key_sealed, KEY, 'sealed at rest');
  t.notMatch(h.logs.join(''), KEY, 'never logged');

  const kept = await v1('POST', '/v1/speech-settings', { transcription_url: 'https://asr.example.com/v1', transcription_model: 'large-v3' });
  t.match(kept.body, { transcription_url: 'https://asr.example.com/v1', transcription_api_key_set: true }, 'no key given: the stored one stays');
  const cleared = await v1('POST', '/v1/speech-settings', { transcription_url: 'https://asr.example.com/v1', transcription_model: 'large-v3', transcription_api_key: null });
  t.match(cleared.body, { transcription_api_key_set: false }, 'null removes the key');

  for (const [body, param] of [
    [{ transcription_url: 'http://asr.example.com/v1', transcription_model: 'whisper-1' }, 'transcription_url'],
    [{ transcription_url: 'https://10.0.0.5/v1', transcription_model: 'whisper-1' }, 'transcription_url'],
    [{ transcription_url: 'https://asr.example.com/v1', transcription_model: 'whisper 1' }, 'transcription_model'],
    [{ transcription_url: 'https://asr.example.com/v1', transcription_model: 'whisper-1', transcription_api_key: 'has space' }, 'transcription_api_key'],
    [{ transcription_model: 'whisper-1' }, 'transcription_url'],
  ] as const) {
    const res = await v1('POST', '/v1/speech-settings', body);
    t.equal(res.status, 400, `${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
    t.equal(res.body.error?.param, param);
    t.notMatch(JSON.stringify(res.body), 'has space', 'a refused key is not echoed');
  }
  t.match((await v1('GET', '/v1/speech-settings')).body, { transcription_url: 'https://asr.example.com/v1' }, 'refused changes changed nothing');
  t.match((await v1('GET', '/v1/speech-settings', undefined, b.key)).body, { transcription_url: null }, "another account's settings are its own");
  t.match((await v1('DELETE', '/v1/speech-settings')).body, { transcription_url: null, transcription_api_key_set: false });
});

t.test("the stored endpoint is the account's recognizer, its key unsealed for the request", async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const seen: Array<string | undefined> = [];
  const server = createServer((req, res) => {
    seen.push(req.headers.authorization);
    req.resume().on('end', () => res.writeHead(200, { 'content-type': 'application/json' }).end('{"text":"billing"}'));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`;
  t.equal((await h.v1('POST', '/v1/speech-settings', { key: a.key, body: { transcription_url: url, transcription_model: 'base.en', transcription_api_key: KEY } })).status, 200);
  const client = createGuardedClient({ allowLoopback: true, requireHttps: false });
  t.teardown(() => client.close());
  const recognizer = await accountTranscription(h.store.speechSettings, createSecretBox(h.masterKey), client)(a.id);
  const said = await recognizer!.recognize({ utterance: { frames: [Buffer.alloc(160, 0x7f)] }, hints: [], language: 'en-US', model: null, signal: new AbortController().signal });
  t.same(said, { text: 'billing', confidence: null });
  t.same(seen, [`Bearer ${KEY}`]);
  t.equal(await accountTranscription(h.store.speechSettings, createSecretBox(h.masterKey), client)((await h.org()).id), null, 'an account without one: none');
});
