// An account's speech settings (docs/speech.md): the OpenAI-compatible transcription endpoint its calls' speech goes
// to instead of the offline recognizer. The key is kept sealed (src/crypto/secret-box.ts) and never shown back.
import type { SqlDb } from '../store/sql.js';
import type { Clock } from '../clock.js';

export interface TranscriptionSetting {
  baseUrl: string;
  model: string;
  /** Sealed; null for an endpoint that takes no key. */
  keySealed: string | null;
  updatedAt: string;
}

interface Row { transcription_url: string; transcription_model: string; transcription_key_sealed: string | null; updated_at: string }

export class SpeechSettingsRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  async transcription(accountId: number): Promise<TranscriptionSetting | null> {
    const row = await this.sql.one<Row>('SELECT * FROM speech_settings WHERE account_id = ?', [accountId]);
    return row ? { baseUrl: row.transcription_url, model: row.transcription_model, keySealed: row.transcription_key_sealed, updatedAt: row.updated_at } : null;
  }

  /** Sets the endpoint; `keySealed` undefined keeps the key stored (a form that leaves the key blank). */
  async setTranscription(accountId: number, s: { baseUrl: string; model: string; keySealed?: string | null }): Promise<TranscriptionSetting> {
    const now = new Date(this.clock.now()).toISOString();
    const keep = s.keySealed === undefined;
    await this.sql.run(`INSERT INTO speech_settings (account_id, transcription_url, transcription_model, transcription_key_sealed, updated_at) VALUES (?, ?, ?, ?, ?)
      ON CONFLICT (account_id) DO UPDATE SET transcription_url = excluded.transcription_url, transcription_model = excluded.transcription_model,
      transcription_key_sealed = CASE WHEN ? = 1 THEN speech_settings.transcription_key_sealed ELSE excluded.transcription_key_sealed END, updated_at = excluded.updated_at`,
    [accountId, s.baseUrl, s.model, s.keySealed ?? null, now, keep ? 1 : 0]);
    return (await this.transcription(accountId))!;
  }

  async removeTranscription(accountId: number): Promise<boolean> {
    return (await this.sql.run('DELETE FROM speech_settings WHERE account_id = ?', [accountId])).changes === 1;
  }
}
