// An OpenAI-compatible endpoint's key (transcription, speech) at rest and in use: sealed when written, opened only
// for a request to the endpoint (docs/security.md, secrets at rest).
import type { SecretBox } from '../crypto/secret-box.js';

/**
 * What a write stores: a key given is sealed; null removes the stored one; undefined (a form whose key was left blank,
 * an API body without the field) keeps it.
 */
export function sealedKey(secrets: SecretBox, key: string | null | undefined): { keySealed?: string | null } {
  if (key === undefined) return {};
  return { keySealed: key === null ? null : secrets.seal(key) };
}

/** The key to send, or null for an endpoint stored without one. */
export function openedKey(secrets: SecretBox, keySealed: string | null): string | null {
  return keySealed === null ? null : secrets.open(keySealed);
}
