// Custom webhook headers often carry the receiver's credentials (`Authorization`, `X-Api-Key`), so their values
// are stored sealed with the master key and shown only masked. The `headers` column keeps the names with masked
// values (what the API and dashboard show); `headers_enc` holds the sealed JSON object that deliveries open.
import type { SecretBox } from '../crypto/secret-box.js';
import type { SqlDb } from '../store/sql.js';
import { OutboundError } from '../net/index.js';

export const MASK = '••••';
// Below this length the last four characters would give away too much of the value; nothing of it is shown.
const MIN_LENGTH_TO_HINT = 8;

export function maskValue(value: string): string {
  return value.length >= MIN_LENGTH_TO_HINT ? MASK + value.slice(-4) : MASK;
}

export interface SealedHeaders {
  /** Name → masked value: what responses show. */
  masks: Record<string, string>;
  /** The sealed JSON object of the real values; null when there are none. */
  sealed: string | null;
}

export function sealHeaders(headers: Record<string, string>, secrets: SecretBox): SealedHeaders {
  const entries = Object.entries(headers);
  return {
    masks: Object.fromEntries(entries.map(([name, value]) => [name, maskValue(value)])),
    sealed: entries.length === 0 ? null : secrets.seal(JSON.stringify(headers)),
  };
}

/** The real header values for a delivery; an unopenable seal (master key changed) fails the attempt, never a crash. */
export function openHeaders(sealed: string | null, secrets: SecretBox): Record<string, string> {
  if (sealed === null) return {};
  const plain = secrets.open(sealed);
  if (plain === null) throw new OutboundError('secret_unavailable', 'the custom headers cannot be decrypted (was the master key changed?)');
  return JSON.parse(plain) as Record<string, string>;
}

/**
 * Rows saved before header values were sealed (headers_enc NULL, clear values in `headers`) are sealed in place.
 * Migrations are plain SQL without the master key, so this runs when the server starts, before it serves or
 * delivers; one transaction, idempotent, and it keeps every value (clear → sealed copy, masks for display). Two
 * nodes starting together each seal a row at most once: the update applies only while the row is still unsealed.
 * Returns how many rows this call sealed.
 */
export async function sealLegacyHeaders(sql: SqlDb, secrets: SecretBox): Promise<number> {
  // SQLite: the clear values' old bytes are zeroed rather than left in freed page space of the database file.
  // (PostgreSQL keeps old row versions until VACUUM reclaims them; it has no such setting.)
  const secureDelete = sql.dialect === 'sqlite' ? (await sql.one<{ secure_delete: number }>('PRAGMA secure_delete'))!.secure_delete : null;
  if (secureDelete !== null) await sql.run('PRAGMA secure_delete = ON');
  try {
    return await sql.transaction(async (tx) => {
      const rows = await tx.all<{ id: number; headers: string }>(`SELECT id, headers FROM webhook_subscriptions WHERE headers_enc IS NULL AND headers <> '{}'`);
      let sealedRows = 0;
      for (const row of rows) {
        const { masks, sealed } = sealHeaders(JSON.parse(row.headers) as Record<string, string>, secrets);
        sealedRows += (await tx.run('UPDATE webhook_subscriptions SET headers = ?, headers_enc = ? WHERE id = ? AND headers_enc IS NULL',
          [JSON.stringify(masks), sealed, row.id])).changes;
      }
      return sealedRows;
    });
  } finally {
    if (secureDelete !== null) await sql.run(`PRAGMA secure_delete = ${secureDelete}`);
  }
}
