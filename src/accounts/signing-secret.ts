import type { AccountRepo } from '../store/accounts.js';
import type { SecretBox } from '../crypto/secret-box.js';
import { randomToken } from '../crypto/tokens.js';

/** Each account's webhook signing secret: created on first use, stored encrypted, rotatable. */
export class SigningSecrets {
  constructor(private readonly accounts: AccountRepo, private readonly secrets: SecretBox) {}

  get(accountId: number): string {
    const current = this.secrets.open(this.accounts.signingSecretSealed(accountId));
    return current ?? this.rotate(accountId);
  }

  rotate(accountId: number): string {
    const secret = `whsec_${randomToken(32)}`;
    this.accounts.setSigningSecretSealed(accountId, this.secrets.seal(secret));
    return secret;
  }
}
