import t from 'tap';
import { startHarness } from '../helpers/harness.js';
import { DashboardClient, PASSWORD, accountWithUser } from './client.js';

t.test('organisation settings: host allow-list, injection token and IPs', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);

  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host: 'Hooks.Example.com' })).status, 303);
  t.same((await h.store.orgSettings.get(a.id)).webhookHosts, ['hooks.example.com']);
  const bad = await c.submit('/dashboard/settings', '/dashboard/settings/hosts', { host: 'https://x.example/path' });
  t.equal(bad.status, 422);
  t.match(bad.text, /<p class="field-error" id="e-host">[^<]*not a host name/, 'the message sits at the host field');
  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/hosts/remove', { host: 'hooks.example.com' })).status, 303);
  t.same((await h.store.orgSettings.get(a.id)).webhookHosts, []);

  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/ips', { cidr: '203.0.113.7/24' })).status, 303);
  t.same((await h.store.orgSettings.get(a.id)).injectionIps, ['203.0.113.0/24']);
  t.match((await c.submit('/dashboard/settings', '/dashboard/settings/ips', { cidr: 'nope' })).text, /id="e-cidr">[^<]*not an IP address/);

  const rotated = await c.submit('/dashboard/settings', '/dashboard/settings/injection-token');
  const token = /id="injection-token"><code>(inj_[^<]+)</.exec(rotated.text)?.[1];
  t.ok(token, 'the new token is shown once');
  t.equal(await h.store.orgSettings.accountForInjectionToken(token!), a.id, 'and works');
  t.notMatch((await c.get('/dashboard/settings')).text, token!, 'not shown again');

  t.match((await c.get('/dashboard/settings')).text, /href="\/dashboard\/subscriptions"/, 'subscriptions have a page of their own');
});

t.test('speech recognition: the endpoint set, its errors at their fields, the key never rendered, removed', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  t.match((await c.get('/dashboard/settings')).text, /<h2>Speech recognition<\/h2>/);
  const key = 'sk-dashboard-secret-1';
  const bad = await c.submit('/dashboard/settings', '/dashboard/settings/speech', { transcription_url: 'http://asr.example.com/v1', transcription_model: 'whisper 1', transcription_api_key: key });
  t.equal(bad.status, 422);
  t.match(bad.text, /id="e-transcription_url">/, 'the URL error at its field');
  t.match(bad.text, /id="e-transcription_model">/, 'the model error at its field');
  t.notMatch(bad.text, key, 'the key typed is not rendered back');
  t.equal(await h.store.speechSettings.transcription(a.id), null, 'nothing stored');
  const saved = await c.submit('/dashboard/settings', '/dashboard/settings/speech', { transcription_url: 'https://asr.example.com/v1', transcription_model: 'whisper-1', transcription_api_key: key });
  t.equal(saved.status, 303);
  const page = (await c.get('/dashboard/settings')).text;
  t.match(page, /transcribed by <code>https:\/\/asr\.example\.com\/v1<\/code> \(model <code>whisper-1<\/code>, with a key/);
  t.notMatch(page, key, 'the key is not shown');
  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/speech/remove')).status, 303);
  t.equal(await h.store.speechSettings.transcription(a.id), null, 'removed');
});

t.test('voices: the endpoint and its voice names set, errors at their fields, the key never rendered, removed', async (t) => {
  const h = await startHarness(t);
  const a = await accountWithUser(h, 'a@example.com');
  const c = new DashboardClient(h.url);
  await c.signIn('a@example.com', PASSWORD);
  const before = (await c.get('/dashboard/settings')).text;
  t.match(before, /<h2>Voices<\/h2>/);
  t.match(before, /Built-in: default, alice/);
  const key = 'sk-dashboard-voices-1';
  const bad = await c.submit('/dashboard/settings', '/dashboard/settings/voices', { speech_url: 'http://tts.example.com/v1', speech_model: 'tts-1', voices: 'alloy, man', speech_api_key: key });
  t.equal(bad.status, 422);
  t.match(bad.text, /id="e-speech_url">/, 'the URL error at its field');
  t.match(bad.text, /id="e-voices">[^<]*man[^<]* is a built-in voice name/, 'the voices error at its field');
  t.match(bad.text, /value="alloy, man"/, 'what was typed stays in the field');
  t.notMatch(bad.text, key, 'the key typed is not rendered back');
  t.equal(await h.store.voiceSettings.get(a.id), null, 'nothing stored');
  const saved = await c.submit('/dashboard/settings', '/dashboard/settings/voices', { speech_url: 'https://tts.example.com/v1', speech_model: 'tts-1', voices: 'alloy, nova  af_bella', speech_api_key: key });
  t.equal(saved.status, 303);
  t.match(await h.store.voiceSettings.get(a.id), { baseUrl: 'https://tts.example.com/v1', model: 'tts-1', voices: ['alloy', 'nova', 'af_bella'] });
  const page = (await c.get('/dashboard/settings')).text;
  t.match(page, /may also name alloy, nova, af_bella: spoken by <code>https:\/\/tts\.example\.com\/v1<\/code> \(model <code>tts-1<\/code>, with a key/);
  t.notMatch(page, key, 'the key is not shown');
  t.equal((await c.submit('/dashboard/settings', '/dashboard/settings/voices/remove')).status, 303);
  t.equal(await h.store.voiceSettings.get(a.id), null, 'removed');
});
