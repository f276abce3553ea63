// /v1/voice-settings: the account's OpenAI-compatible speech endpoint and the voice names <Say> may use from it
// (docs/speech.md, Voices). The URL is checked under the customer-URL rule when written; the key is sealed and never
// shown.
import type { FastifyInstance } from 'fastify';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Store } from '../../repositories.js';
import type { VoiceSetting } from '../../speech/voice-settings.js';
import { BUILT_IN_VOICES } from '../../markup/index.js';
import type { CustomerUrlRule } from '../../net/index.js';
import { voiceProblems } from '../../speech/settings-input.js';
import { sealedKey } from '../../speech/endpoint-key.js';
import { previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { previewErrorResponses } from '../schemas/preview.js';
import { VoiceSettings, VoiceSettingsBody, type VoiceSettingsInput } from '../schemas/preview-speech.js';

const tags = ['Speech (preview)'];
const security = [{ bearerAuth: [] }];

export function voiceSettingsView(s: VoiceSetting | null) {
  return {
    synthesizer: s ? 'openai-compatible' as const : 'flite' as const, builtin_voices: [...BUILT_IN_VOICES], voices: s ? [...s.voices] : [],
    speech_url: s?.baseUrl ?? null, speech_model: s?.model ?? null, speech_api_key_set: s?.keySealed != null, date_updated: s?.updatedAt ?? null,
  };
}

export async function voiceSettingsRoutes(app: FastifyInstance, deps: { store: Store; secrets: SecretBox; urls: CustomerUrlRule }): Promise<void> {
  acceptFormBodies(app);
  const { store, secrets } = deps;

  app.get('/v1/voice-settings', {
    schema: { tags, security, summary: "The account's voices", response: { 200: VoiceSettings, ...previewErrorResponses() } },
  }, async (req) => voiceSettingsView(await store.voiceSettings.get(req.account.id)));

  app.post<{ Body: VoiceSettingsInput }>('/v1/voice-settings', {
    schema: { tags, security, summary: "Speak <Say> voices through an OpenAI-compatible speech endpoint", body: VoiceSettingsBody, response: { 200: VoiceSettings, ...previewErrorResponses() } },
  }, async (req) => {
    const b = req.body;
    const key = b.speech_api_key;
    const [problem] = Object.entries(voiceProblems({ url: b.speech_url, model: b.speech_model, key, voices: b.voices }, deps.urls));
    if (problem) throw previewErrors.parameterInvalid(problem[0], problem[1]);
    const saved = await store.voiceSettings.set(req.account.id, {
      baseUrl: b.speech_url, model: b.speech_model, voices: b.voices, ...sealedKey(secrets, key),
    });
    return voiceSettingsView(saved);
  });

  app.delete('/v1/voice-settings', {
    schema: { tags, security, summary: 'Back to the built-in voices only', response: { 200: VoiceSettings, ...previewErrorResponses() } },
  }, async (req) => {
    await store.voiceSettings.remove(req.account.id);
    return voiceSettingsView(null);
  });
}
