import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';

const VERSION = 'v1';
/**
 * Values opened lately, by their sealed form: an API trunk fetch or a webhook delivery opens the same few secrets
 * again and again, and AES-GCM with its key setup was 5 % of a trunk fetch. At rest they stay sealed; a sealed
 * form names one plain value for good (a new value is a new sealed form), so nothing here goes stale.
 */
const OPENED_KEPT = 1_000;

/** AES-256-GCM encryption of secrets at rest (SIP passwords, signing secrets), keyed by the master key. */
export interface SecretBox {
  seal(plain: string): string;
  /** null when the value cannot be decrypted (wrong master key, corrupted row): callers degrade, never crash. */
  open(sealed: string | null): string | null;
  /**
   * A key of its own for one purpose (e.g. signing what control planes send each other), derived from the master
   * key: every process holding the master key derives the same one, and it says nothing about the master key.
   */
  derive(purpose: string): Buffer;
}

export function createSecretBox(masterKey: Buffer): SecretBox {
  if (masterKey.length !== 32) throw new Error('master key must be 32 bytes');
  const opened = new Map<string, string>();
  const decrypt = (sealed: string): string | null => {
    const [version, iv, tag, ct] = sealed.split('.');
    if (version !== VERSION || iv === undefined || tag === undefined || ct === undefined) return null;
    try {
      const decipher = createDecipheriv('aes-256-gcm', masterKey, Buffer.from(iv, 'base64url'));
      decipher.setAuthTag(Buffer.from(tag, 'base64url'));
      return Buffer.concat([decipher.update(Buffer.from(ct, 'base64url')), decipher.final()]).toString('utf8');
    } catch {
      return null;
    }
  };
  return {
    derive: (purpose) => createHmac('sha256', masterKey).update(`ringbase key: ${purpose}`).digest(),
    seal(plain) {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', masterKey, iv);
      const ct = Buffer.concat([cipher.update(plain, 'utf8'), cipher.final()]);
      return [VERSION, iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ct.toString('base64url')].join('.');
    },
    open(sealed) {
      if (!sealed) return null;
      const kept = opened.get(sealed);
      if (kept !== undefined) return kept;
      const plain = decrypt(sealed);
      if (plain !== null) {
        opened.set(sealed, plain);
        if (opened.size > OPENED_KEPT) opened.delete(opened.keys().next().value!);
      }
      return plain;
    },
  };
}
