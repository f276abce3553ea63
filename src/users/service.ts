import type { Clock } from '../clock.js';
import { randomToken, sha256Hex } from '../crypto/tokens.js';
import type { UserRepo, User } from './repo.js';
import { DUMMY_HASH, hashPassword, verifyPassword } from './password.js';
import { SignInDelays, type SignInDelayLimit } from './sign-in-delay.js';

export const SET_PASSWORD_TTL_MS = 24 * 3600_000;
export const SESSION_TTL_MS = 12 * 3600_000;
export const PASSWORD_MIN = 10;
const PASSWORD_MAX = 1024;
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const SET_PASSWORD = 'set-password';

export class UserError extends Error {
  constructor(readonly field: string, message: string) { super(message); }
}

export interface Session { token: string; csrfToken: string; user: User }

/**
 * `invalid`: wrong email or password, and `waitSeconds` before the next attempt from this address (0: none).
 * `wait`: the attempt came too soon after failures from this address and was not checked.
 */
export type SignInResult =
  | { ok: true; session: Session }
  | { ok: false; reason: 'invalid' | 'wait'; waitSeconds: number };

/** Null when the password is acceptable, else the message to show next to the field. */
export function passwordProblem(password: string): string | null {
  if (password.length < PASSWORD_MIN) return `Use at least ${PASSWORD_MIN} characters.`;
  if (password.length > PASSWORD_MAX) return `Use at most ${PASSWORD_MAX} characters.`;
  return null;
}

/** Dashboard accounts: creation by the operator, one-time password links, sign-in with delays, sessions. */
export class UserService {
  /**
   * `delays`: the server passes the store's (signInDelaysFor: shared on PostgreSQL); this process's memory by default,
   * enough for what only creates users and sets passwords (the CLI).
   */
  constructor(private readonly repo: UserRepo, clock: Clock, private readonly delays: SignInDelayLimit = new SignInDelays(clock)) {}

  /** Creates the user and returns the one-time token for the set-password link (valid 24 hours). */
  async create(accountId: number, email: string): Promise<{ user: User; setPasswordToken: string }> {
    const normalized = email.trim();
    if (!EMAIL.test(normalized) || normalized.length > 254) throw new UserError('email', `"${email}" is not an email address`);
    const user = await this.repo.create(accountId, normalized);
    if (!user) throw new UserError('email', `a user with email ${normalized} already exists`);
    return { user, setPasswordToken: await this.issueSetPasswordToken(user.id) };
  }

  async issueSetPasswordToken(userId: number): Promise<string> {
    const token = randomToken(32);
    await this.repo.addToken(sha256Hex(token), userId, SET_PASSWORD, SET_PASSWORD_TTL_MS);
    return token;
  }

  setPasswordTokenLive(token: string): Promise<boolean> {
    return this.repo.tokenLive(sha256Hex(token), SET_PASSWORD);
  }

  /** Uses the token once; every existing session of the user ends, since a new password means a new start. */
  async setPasswordWithToken(token: string, password: string): Promise<User> {
    const problem = passwordProblem(password);
    if (problem) throw new UserError('password', problem);
    const hash = await hashPassword(password);
    const userId = await this.repo.consumeToken(sha256Hex(token), SET_PASSWORD);
    if (userId === undefined) throw new UserError('token', 'This link is invalid, already used or expired. Ask the service team for a new one.');
    await this.repo.setPasswordHash(userId, hash);
    await this.repo.deleteSessionsOf(userId);
    return (await this.repo.get(userId))!;
  }

  async setPassword(userId: number, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new UserError('password', problem);
    await this.repo.setPasswordHash(userId, await hashPassword(password));
    await this.repo.deleteSessionsOf(userId);
  }

  /**
   * Unknown emails, wrong passwords and users without a password all answer "invalid" after the same scrypt
   * work, and failures are counted per (email, `source` address) whether or not the email exists, so the form
   * reveals nothing about which emails exist. While the pair must wait, no password is checked, the right one
   * included; other addresses are not affected.
   */
  async signIn(email: string, password: string, source: string): Promise<SignInResult> {
    const early = await this.delays.waitFor(email, source);
    if (early > 0) return { ok: false, reason: 'wait', waitSeconds: early };
    const user = await this.repo.getByEmail(email.trim());
    const matches = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
    if (!user || !user.passwordHash || !matches) {
      return { ok: false, reason: 'invalid', waitSeconds: await this.delays.recordFailure(email, source) };
    }
    await this.delays.clear(email, source);
    await this.repo.deleteExpired();
    const token = randomToken(32);
    const csrfToken = randomToken(24);
    await this.repo.addSession(sha256Hex(token), user.id, csrfToken, SESSION_TTL_MS);
    return { ok: true, session: { token, csrfToken, user } };
  }

  async session(token: string): Promise<Session | undefined> {
    const row = await this.repo.session(sha256Hex(token));
    const user = row && await this.repo.get(row.userId);
    return user && row && { token, csrfToken: row.csrfToken, user };
  }

  signOut(token: string): Promise<void> {
    return this.repo.deleteSession(sha256Hex(token));
  }
}
