// /v1/voice-settings over HTTPS: an account's OpenAI-compatible speech endpoint and the voice names <Say> may use
// from it. The key is sealed at rest, never shown or logged; the URL meets the customer-URL rule when written; voice
// names are refused when malformed, doubled, built in or too many; each account sees only its own.
import t from 'tap';
import { startPreviewHarness } from './helpers.js';

const KEY = 'sk-proj-voices-0123456789abcdef';
const OK = { speech_url: 'https://api.openai.com/v1', speech_model: 'tts-1', voices: ['alloy', 'nova'] };

t.test('set, show without the key, replace, remove; refused values name their field', async (t) => {
  const h = await startPreviewHarness(t);
  const a = await h.org();
  const b = await h.org();
  const v1 = (method: string, path: string, body?: unknown, key = a.key) => h.v1(method, path, { key, ...(body === undefined ? {} : { body }) });
  const none = (await v1('GET', '/v1/voice-settings')).body;
  t.match(none, { synthesizer: 'flite', voices: [], speech_url: null, speech_model: null, speech_api_key_set: false, date_updated: null });
  t.ok(none.builtin_voices.includes('alice') && none.builtin_voices.includes('default'), 'the built-in voices are listed');

  const set = await v1('POST', '/v1/voice-settings', { ...OK, speech_api_key: KEY });
  t.equal(set.status, 200, JSON.stringify(set.body));
  t.match(set.body, { synthesizer: 'openai-compatible', voices: ['alloy', 'nova'], speech_url: 'https://api.openai.com/v1', speech_model: 'tts-1', speech_api_key_set: true });
  t.notMatch(JSON.stringify(set.body), KEY, 'the key is never shown');
  const row = await h.store.sql.one<{ speech_key_sealed: string }>('SELECT speech_key_sealed FROM voice_settings WHERE account_id = ?', [a.id]);
  t.notMatch(row!.speech_key_sealed, KEY, 'sealed at rest');
  t.notMatch(h.logs.join(''), KEY, 'never logged');

  const kept = await v1('POST', '/v1/voice-settings', { ...OK, speech_url: 'https://tts.example.com/v1', voices: ['af_bella'] });
  t.match(kept.body, { speech_url: 'https://tts.example.com/v1', voices: ['af_bella'], speech_api_key_set: true }, 'no key given: the stored one stays');
  t.match((await v1('POST', '/v1/voice-settings', { ...OK, speech_api_key: null })).body, { speech_api_key_set: false }, 'null removes the key');

  for (const [body, param] of [
    [{ ...OK, speech_url: 'http://tts.example.com/v1' }, 'speech_url'],
    [{ ...OK, speech_url: 'https://10.0.0.5/v1' }, 'speech_url'],
    [{ ...OK, speech_model: 'tts 1' }, 'speech_model'],
    [{ ...OK, speech_api_key: 'has space' }, 'speech_api_key'],
    [{ ...OK, voices: [] }, 'voices'],
    [{ ...OK, voices: ['bad voice'] }, 'voices.0'],
    [{ ...OK, voices: ['alloy', 'alloy'] }, 'voices'],
    [{ ...OK, voices: ['Alice'] }, 'voices'],
    [{ ...OK, voices: Array.from({ length: 51 }, (_, i) => `v${i}`) }, 'voices'],
    [{ speech_model: 'tts-1', voices: ['alloy'] }, 'speech_url'],
  ] as const) {
    const res = await v1('POST', '/v1/voice-settings', body);
    t.equal(res.status, 400, `${JSON.stringify(body).slice(0, 120)}: ${JSON.stringify(res.body)}`);
    t.equal(res.body.error?.param, param);
    t.notMatch(JSON.stringify(res.body), 'has space', 'a refused key is not echoed');
  }
  const builtIn = await v1('POST', '/v1/voice-settings', { ...OK, voices: ['nova', 'Alice'] });
  t.match(builtIn.body.error?.message, /"Alice" is a built-in voice name/);
  t.match((await v1('GET', '/v1/voice-settings')).body, { speech_url: 'https://api.openai.com/v1', voices: ['alloy', 'nova'] }, 'refused changes changed nothing');
  t.match((await v1('GET', '/v1/voice-settings', undefined, b.key)).body, { synthesizer: 'flite', voices: [] }, "another account's settings are its own");
  t.match((await v1('DELETE', '/v1/voice-settings')).body, { synthesizer: 'flite', voices: [], speech_url: null, speech_api_key_set: false });
  t.equal(await h.store.voiceSettings.get(a.id), null, 'removed');
});
