// An account's vendor voices on the sandbox engine, with a local stand-in for its OpenAI-compatible speech endpoint:
// <Say voice> (and a Say inside a Gather) is rendered by the endpoint with the request OpenAI documents (JSON model,
// input, voice, response_format; the key as a bearer token), once: later calls play the cached file. An endpoint
// that answers an error, answers no audio or does not answer in time gives `voice-failed` on the timeline and the
// words in the default voice, never a stuck call; after a timeout the endpoint is skipped for a while. A document
// naming a voice the account does not have is refused as markup.
import t, { type Test } from 'tap';
import { sandboxDriver } from '../engine-suite/sandbox-driver.js';
import { scene, CALLER, DID } from '../engine-suite/flows.js';
import { xml } from '../helpers/webhook-app.js';
import { startSpeechEndpoint } from '../helpers/speech-endpoint.js';
import { toneMp3 } from '../helpers/media-origin.js';
import { SPEECH_TIMEOUT_MS } from '../../src/speech/openai-speech.js';

const KEY = 'sk-test-voices-0123456789';

async function setUp(t: Test) {
  const d = await sandboxDriver(t);
  const s = await scene(t, d);
  const tts = await startSpeechEndpoint(t);
  const set = await d.h.request('POST', '/v1/voice-settings', {
    headers: { 'x-forwarded-proto': 'https' }, body: { speech_url: tts.url, speech_model: 'tts-1', speech_api_key: KEY, voices: ['alloy', 'nova'] },
  });
  t.equal(set.status, 200, JSON.stringify(set.body));
  return { d, s, tts };
}

async function callOnce(d: Awaited<ReturnType<typeof setUp>>['d'], s: Awaited<ReturnType<typeof setUp>>['s'], plan = {}) {
  const call = await d.inbound(CALLER, DID, plan);
  await call.ended;
  const record = await s.finalCall();
  return { call, record, timeline: await d.h.store.calls.timeline(record.sid) };
}

t.test('a vendor voice: rendered once with the documented request, played from the cache afterwards', async (t) => {
  const { d, s, tts } = await setUp(t);
  s.app.on('/voice', xml('<Say voice="alloy">Welcome to Acme.</Say><Gather numDigits="1" timeout="2" action="/key"><Say voice="nova">Press one.</Say></Gather><Hangup/>'));
  s.app.on('/key', xml('<Say voice="alloy">Thank  you.</Say><Hangup/>'));
  const first = await callOnce(d, s, { gatherInput: ['1'] });
  t.same(first.call.heard(), ['Welcome to Acme.', 'Press one.', 'Thank  you.'], 'the caller heard every prompt');
  t.same(tts.calls.map((c) => c.body), [
    { model: 'tts-1', input: 'Welcome to Acme.', voice: 'alloy', response_format: 'wav' },
    { model: 'tts-1', input: 'Press one.', voice: 'nova', response_format: 'wav' },
    { model: 'tts-1', input: 'Thank you.', voice: 'alloy', response_format: 'wav' },
  ], 'the text (spaces collapsed), the voice and the model, asking for WAV');
  t.ok(tts.calls.every((c) => c.path === '/v1/audio/speech' && c.authorization === `Bearer ${KEY}` && c.contentType === 'application/json'), 'POST /audio/speech with the key as a bearer token');
  const ready = first.timeline.filter((e) => e.kind === 'voice-ready');
  t.same(ready.map((e) => [e.detail.voice, e.detail.via]), [['alloy', 'rendered'], ['nova', 'rendered'], ['alloy', 'rendered']]);

  const second = await callOnce(d, s, { gatherInput: ['1'] });
  t.equal(tts.calls.length, 3, 'the second call asked the endpoint nothing');
  t.same(second.timeline.filter((e) => e.kind === 'voice-ready').map((e) => e.detail.via), ['hit', 'hit', 'hit'], 'played from the cache');

  // An endpoint that ignores the format asked for and answers MP3 is decoded.
  tts.answer = () => ({ status: 200, headers: { 'content-type': 'audio/mpeg' }, body: toneMp3(1, 1200) });
  s.app.on('/voice', xml('<Say voice="alloy">Something new.</Say><Hangup/>'));
  const mp3 = await callOnce(d, s);
  t.match(mp3.timeline.find((e) => e.kind === 'voice-ready')?.detail, { voice: 'alloy', via: 'rendered' }, 'MP3 decoded and played');
  t.notOk(d.h.logs.join('').includes(KEY), 'the key is never logged');
});

t.test('an endpoint that fails: voice-failed with why, the words in the default voice, the call goes on', async (t) => {
  const { d, s, tts } = await setUp(t);
  s.app.on('/voice', xml('<Say voice="alloy">Hello there.</Say><Say>Goodbye.</Say><Hangup/>'));
  for (const [answer, why] of [
    [{ status: 500, body: '{"error":{"message":"overloaded"}}' }, /answered 500/],
    [{ status: 401, body: '{"error":{"message":"bad key"}}' }, /answered 401/],
    [{ status: 200, headers: { 'content-type': 'application/json' }, body: '{"ok":true}' }, /without audio/],
  ] as const) {
    tts.answer = () => answer;
    const { call, record, timeline } = await callOnce(d, s);
    t.same(call.heard(), ['Hello there.', 'Goodbye.'], `${answer.status}: the words are still said`);
    t.match(timeline.find((e) => e.kind === 'voice-failed')?.detail, { voice: 'alloy', reason: why });
    t.equal(record.status, 'completed');
  }

  tts.answer = () => 'hang';
  const started = Date.now();
  const slow = await callOnce(d, s);
  const waited = Date.now() - started;
  t.match(slow.timeline.find((e) => e.kind === 'voice-failed')?.detail, { reason: /did not answer within 5 s/ });
  t.ok(waited >= SPEECH_TIMEOUT_MS && waited < SPEECH_TIMEOUT_MS + 5_000, `the timeout bounds the wait (${waited} ms)`);
  const asked = tts.calls.length;
  const skipped = await callOnce(d, s);
  t.match(skipped.timeline.find((e) => e.kind === 'voice-failed')?.detail, { reason: /timed out \d+ s ago/ }, 'skipped after a timeout');
  t.equal(tts.calls.length, asked, 'not asked again meanwhile');
});

t.test("a voice the account does not have is refused as markup; the account's voices are read fresh after a change", async (t) => {
  const { d, s, tts } = await setUp(t);
  s.app.on('/voice', xml('<Say voice="shimmer">Hi.</Say>'));
  const refused = await callOnce(d, s);
  t.match(refused.timeline.find((e) => e.kind === 'markup-error')?.detail, { issues: [{ code: 'unknown_voice' }] });
  t.equal(tts.calls.length, 0);

  const changed = await d.h.request('POST', '/v1/voice-settings', { headers: { 'x-forwarded-proto': 'https' }, body: { speech_url: tts.url, speech_model: 'tts-1', voices: ['shimmer'] } });
  t.equal(changed.status, 200);
  const known = await callOnce(d, s);
  t.notOk(known.timeline.some((e) => e.kind === 'markup-error'), 'known once listed');
  t.same(tts.calls.map((c) => [c.body.voice, c.authorization]), [['shimmer', `Bearer ${KEY}`]], 'no key given: the stored one is kept');

  const inline = await d.h.request('POST', '/api/calls', { body: { from: DID, to: '+15550009999', markup: '<Response><Say voice="alloy">Hi</Say></Response>' } });
  t.equal(inline.status, 422, 'inline markup is linted with the account\'s voices');
  t.match(JSON.stringify(inline.body), /unknown_voice/);
});
