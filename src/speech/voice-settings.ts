// An account's voices (docs/speech.md, Voices): the OpenAI-compatible speech endpoint that renders them and the names
// <Say voice> may use. Read for every markup document a call fetches, so reads are cached until the table changes
// (here or on another control plane). The key is kept sealed (src/crypto/secret-box.ts) and never shown back.
import type { Clock } from '../clock.js';
import { ReadCache, type CacheInvalidation } from '../store/read-cache.js';
import type { SqlDb } from '../store/sql.js';

export interface VoiceSetting {
  baseUrl: string;
  model: string;
  /** Sealed; null for an endpoint that takes no key. */
  keySealed: string | null;
  /** The endpoint's voice names, as it takes them. */
  voices: string[];
  updatedAt: string;
}

interface Row { speech_url: string; speech_model: string; speech_key_sealed: string | null; voices: string; updated_at: string }

export class VoiceSettingsRepo {
  // An account without vendor voices is remembered too ({ setting: null }): that is the common case.
  readonly #cache: ReadCache<{ setting: VoiceSetting | null }>;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, changes: CacheInvalidation) {
    this.#cache = new ReadCache(changes, 'voice_settings');
  }

  async get(accountId: number): Promise<VoiceSetting | null> {
    const got = await this.#cache.read(String(accountId), async () => {
      const row = await this.sql.one<Row>('SELECT * FROM voice_settings WHERE account_id = ?', [accountId]);
      return { setting: row ? { baseUrl: row.speech_url, model: row.speech_model, keySealed: row.speech_key_sealed, voices: JSON.parse(row.voices) as string[], updatedAt: row.updated_at } : null };
    });
    return got!.setting;
  }

  /** Sets the endpoint and its voices; `keySealed` undefined keeps the key stored (a form that leaves the key blank). */
  async set(accountId: number, s: { baseUrl: string; model: string; voices: string[]; keySealed?: string | null }): Promise<VoiceSetting> {
    const now = new Date(this.clock.now()).toISOString();
    const keep = s.keySealed === undefined;
    await this.#cache.write(this.sql, (tx) => tx.run(`INSERT INTO voice_settings (account_id, speech_url, speech_model, speech_key_sealed, voices, updated_at) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (account_id) DO UPDATE SET speech_url = excluded.speech_url, speech_model = excluded.speech_model, voices = excluded.voices,
      speech_key_sealed = CASE WHEN ? = 1 THEN voice_settings.speech_key_sealed ELSE excluded.speech_key_sealed END, updated_at = excluded.updated_at`,
    [accountId, s.baseUrl, s.model, s.keySealed ?? null, JSON.stringify(s.voices), now, keep ? 1 : 0]));
    return (await this.get(accountId))!;
  }

  async remove(accountId: number): Promise<boolean> {
    return (await this.#cache.write(this.sql, (tx) => tx.run('DELETE FROM voice_settings WHERE account_id = ?', [accountId]))).changes === 1;
  }
}
