import type { AccountRepo } from '../store/accounts.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { randomToken } from '../crypto/tokens.js';

const newSecret = (): string => `whsec_${randomToken(32)}`;

/** Each account's webhook signing secret: created on first use, stored encrypted, rotatable. */
export class SigningSecrets {
  constructor(private readonly accounts: AccountRepo, private readonly secrets: SecretBox) {}

  async get(accountId: number): Promise<string> {
    const sealed = await this.accounts.signingSecretSealed(accountId);
    const current = this.secrets.open(sealed);
    if (current !== null) return current;
    // Sealed under another master key: replaced, as a rotation would.
    if (sealed !== null) return this.rotate(accountId);
    // First use, perhaps on two requests or nodes at once: both sign with the secret that was stored first.
    const secret = newSecret();
    return this.secrets.open(await this.accounts.initSigningSecretSealed(accountId, this.secrets.seal(secret))) ?? secret;
  }

  async rotate(accountId: number): Promise<string> {
    const secret = newSecret();
    await this.accounts.setSigningSecretSealed(accountId, this.secrets.seal(secret));
    return secret;
  }
}
