// The speech tables and columns (docs/speech.md): migrations of src/store/migrations.ts, in its order there.

/** An account's OpenAI-compatible transcription endpoint for speech gathers (src/speech/settings.ts); the key sealed. */
export const SPEECH_SETTINGS = `
  CREATE TABLE speech_settings (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    transcription_url TEXT NOT NULL,
    transcription_model TEXT NOT NULL,
    transcription_key_sealed TEXT,
    updated_at TEXT NOT NULL
  );
`;

/**
 * A recording's transcript (<Record transcribe>, POST /api/recordings/{sid}/transcription; src/calls/transcription.ts):
 * in-progress, completed with its text, or failed with why; whether the recording's voicemail-left event waits for it.
 */
export const RECORDING_TRANSCRIPTION = `
  ALTER TABLE recordings ADD COLUMN transcription_status TEXT;
  ALTER TABLE recordings ADD COLUMN transcription_holds_event INTEGER NOT NULL DEFAULT 0;
  ALTER TABLE recordings ADD COLUMN transcription_text TEXT;
  ALTER TABLE recordings ADD COLUMN transcription_error TEXT;
`;

/**
 * An account's OpenAI-compatible speech endpoint and the voice names <Say> may use from it
 * (src/speech/voice-settings.ts): voices a JSON array of names; the key sealed.
 */
export const VOICE_SETTINGS = `
  CREATE TABLE voice_settings (
    account_id INTEGER PRIMARY KEY REFERENCES accounts(id),
    speech_url TEXT NOT NULL,
    speech_model TEXT NOT NULL,
    speech_key_sealed TEXT,
    voices TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
`;
