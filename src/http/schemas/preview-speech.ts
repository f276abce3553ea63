// /v1/speech-settings: an account's speech recognizer (docs/speech.md).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from './common.js';
import { TRANSCRIPTION_KEY, TRANSCRIPTION_MODEL } from '../../speech/settings-input.js';

export const SpeechSettingsBody = Type.Object({
  transcription_url: Type.String({ maxLength: 2048, description: 'Base URL of an OpenAI-compatible API, up to its version (https://api.openai.com/v1, or a local whisper.cpp or faster-whisper server): POST {transcription_url}/audio/transcriptions. https, under the target policy.' }),
  transcription_model: Type.String({ pattern: TRANSCRIPTION_MODEL.source, description: 'The model the endpoint runs (whisper-1); a Gather\'s speechModel replaces it.' }),
  transcription_api_key: Type.Optional(Nullable(Type.String({ pattern: TRANSCRIPTION_KEY.source, description: 'Sent as a bearer token; kept sealed, never shown back. Absent keeps the stored key; null removes it (a local server that takes none).' }))),
}, { additionalProperties: false });
export type SpeechSettingsInput = Static<typeof SpeechSettingsBody>;

export const SpeechSettings = Type.Object({
  recognizer: StringEnum(['openai-compatible', 'pocketsphinx', 'none'] as const, {
    description: "What hears the account's real calls' speech gathers: its OpenAI-compatible endpoint when set, else the offline recognizer when installed on the control plane, else none (speech gathers take their empty-result path).",
  }),
  transcription_url: Nullable(Type.String()),
  transcription_model: Nullable(Type.String()),
  transcription_api_key_set: Type.Boolean({ description: 'Whether a key is stored (it is never shown).' }),
  date_updated: Nullable(Type.String({ format: 'date-time' })),
});
