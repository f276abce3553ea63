// /v1/speech-settings: which recognizer hears the account's speech gathers, and its OpenAI-compatible endpoint
// (docs/speech.md). The URL is checked under the customer-URL rule when written; the key is sealed and never shown.
import type { FastifyInstance } from 'fastify';
import type { SecretBox } from '../../crypto/secret-box.js';
import type { Store } from '../../repositories.js';
import type { TranscriptionSetting } from '../../speech/settings.js';
import type { CustomerUrlRule } from '../../net/index.js';
import { transcriptionProblems } from '../../speech/settings-input.js';
import { sealedKey } from '../../speech/endpoint-key.js';
import { previewErrors } from '../errors.js';
import { acceptFormBodies } from '../form-bodies.js';
import { previewErrorResponses } from '../schemas/preview.js';
import { SpeechSettings, SpeechSettingsBody, type SpeechSettingsInput } from '../schemas/preview-speech.js';

const tags = ['Speech (preview)'];
const security = [{ bearerAuth: [] }];

/** The settings as the API shows them; `offline`: the offline recognizer installed here, if any. */
export function speechSettingsView(t: TranscriptionSetting | null, offline: string | null) {
  return {
    recognizer: t ? 'openai-compatible' as const : offline ? 'pocketsphinx' as const : 'none' as const,
    transcription_url: t?.baseUrl ?? null, transcription_model: t?.model ?? null,
    transcription_api_key_set: t?.keySealed != null, date_updated: t?.updatedAt ?? null,
  };
}

export async function speechSettingsRoutes(app: FastifyInstance, deps: { store: Store; secrets: SecretBox; urls: CustomerUrlRule; offline: string | null }): Promise<void> {
  acceptFormBodies(app);
  const { store, secrets, offline } = deps;

  app.get('/v1/speech-settings', {
    schema: { tags, security, summary: "The account's speech recognizer", response: { 200: SpeechSettings, ...previewErrorResponses() } },
  }, async (req) => speechSettingsView(await store.speechSettings.transcription(req.account.id), offline));

  app.post<{ Body: SpeechSettingsInput }>('/v1/speech-settings', {
    schema: { tags, security, summary: 'Send the account\'s speech gathers to an OpenAI-compatible transcription endpoint', body: SpeechSettingsBody, response: { 200: SpeechSettings, ...previewErrorResponses() } },
  }, async (req) => {
    const b = req.body;
    const key = b.transcription_api_key;
    const [problem] = Object.entries(transcriptionProblems({ url: b.transcription_url, model: b.transcription_model, key }, deps.urls));
    if (problem) throw previewErrors.parameterInvalid(problem[0], problem[1]);
    const saved = await store.speechSettings.setTranscription(req.account.id, {
      baseUrl: b.transcription_url, model: b.transcription_model, ...sealedKey(secrets, key),
    });
    return speechSettingsView(saved, offline);
  });

  app.delete('/v1/speech-settings', {
    schema: { tags, security, summary: 'Back to the offline recognizer', response: { 200: SpeechSettings, ...previewErrorResponses() } },
  }, async (req) => {
    await store.speechSettings.removeTranscription(req.account.id);
    return speechSettingsView(null, offline);
  });
}
