// /v1/speech-settings and /v1/voice-settings: an account's speech recognizer and its voices (docs/speech.md).
import { Type, type Static } from '@sinclair/typebox';
import { Nullable, StringEnum } from './common.js';
import { ENDPOINT_KEY, ENDPOINT_MODEL, MAX_VOICES } from '../../speech/settings-input.js';
import { VOICE_NAME } from '../../markup/index.js';

export const SpeechSettingsBody = Type.Object({
  transcription_url: Type.String({ maxLength: 2048, description: 'Base URL of an OpenAI-compatible API, up to its version (https://api.openai.com/v1, or a local whisper.cpp or faster-whisper server): POST {transcription_url}/audio/transcriptions. https, under the target policy.' }),
  transcription_model: Type.String({ pattern: ENDPOINT_MODEL.source, description: 'The model the endpoint runs (whisper-1); a Gather\'s speechModel replaces it.' }),
  transcription_api_key: Type.Optional(Nullable(Type.String({ pattern: ENDPOINT_KEY.source, description: 'Sent as a bearer token; kept sealed, never shown back. Absent keeps the stored key; null removes it (a local server that takes none).' }))),
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

// /v1/voice-settings: an account's vendor voices for <Say> (docs/speech.md, Voices).
export const VoiceSettingsBody = Type.Object({
  speech_url: Type.String({ maxLength: 2048, description: 'Base URL of an OpenAI-compatible API, up to its version (https://api.openai.com/v1, or a local Kokoro or Piper server): POST {speech_url}/audio/speech. https, under the target policy.' }),
  speech_model: Type.String({ pattern: ENDPOINT_MODEL.source, description: 'The model the endpoint runs (tts-1, kokoro).' }),
  speech_api_key: Type.Optional(Nullable(Type.String({ pattern: ENDPOINT_KEY.source, description: 'Sent as a bearer token; kept sealed, never shown back. Absent keeps the stored key; null removes it (a local server that takes none).' }))),
  voices: Type.Array(Type.String({ pattern: VOICE_NAME.source }), {
    minItems: 1, maxItems: MAX_VOICES,
    description: 'The endpoint\'s voice names <Say voice> may use (alloy, af_bella), each at most once and none a built-in name. Markup naming another voice is refused where it is read.',
  }),
}, { additionalProperties: false });
export type VoiceSettingsInput = Static<typeof VoiceSettingsBody>;

export const VoiceSettings = Type.Object({
  synthesizer: StringEnum(['openai-compatible', 'flite'] as const, {
    description: 'What speaks the account\'s vendor voices: its OpenAI-compatible endpoint when set; the built-in voices are always flite, offline.',
  }),
  builtin_voices: Type.Array(Type.String(), { description: 'The voices every account has, spoken offline by flite.' }),
  voices: Type.Array(Type.String(), { description: "The account's vendor voices; empty when no endpoint is set." }),
  speech_url: Nullable(Type.String()),
  speech_model: Nullable(Type.String()),
  speech_api_key_set: Type.Boolean({ description: 'Whether a key is stored (it is never shown).' }),
  date_updated: Nullable(Type.String({ format: 'date-time' })),
});
