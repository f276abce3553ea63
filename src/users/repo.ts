import type { Db } from '../store/db.js';
import type { Clock } from '../clock.js';

export interface User {
  id: number;
  accountId: number;
  email: string;
  passwordHash: string | null;
  createdAt: string;
}

export interface SessionRow { userId: number; csrfToken: string; expiresAt: string }

interface Row {
  id: number; account_id: number; email: string; password_hash: string | null; created_at: string;
}

const toUser = (r: Row): User => ({
  id: r.id, accountId: r.account_id, email: r.email, passwordHash: r.password_hash, createdAt: r.created_at,
});

/** Dashboard users, their one-time tokens and their sessions. Tokens are stored only as SHA-256 hashes. */
export class UserRepo {
  constructor(private readonly db: Db, private readonly clock: Clock) {}

  create(accountId: number, email: string): User {
    const info = this.db.prepare('INSERT INTO users (account_id, email, created_at) VALUES (?, ?, ?)').run(accountId, email, this.#iso(0));
    return this.get(Number(info.lastInsertRowid))!;
  }

  get(id: number): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE id = ?').get(id) as Row | undefined;
    return row && toUser(row);
  }

  getByEmail(email: string): User | undefined {
    const row = this.db.prepare('SELECT * FROM users WHERE email = ?').get(email) as Row | undefined;
    return row && toUser(row);
  }

  listForAccount(accountId: number): User[] {
    return (this.db.prepare('SELECT * FROM users WHERE account_id = ? ORDER BY id').all(accountId) as Row[]).map(toUser);
  }

  setPasswordHash(id: number, hash: string): void {
    this.db.prepare('UPDATE users SET password_hash = ? WHERE id = ?').run(hash, id);
  }

  addToken(tokenHash: string, userId: number, purpose: string, ttlMs: number): void {
    this.db.prepare('INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at) VALUES (?, ?, ?, ?)')
      .run(tokenHash, userId, purpose, this.#iso(ttlMs));
  }

  /** Marks a live token used and returns its user, in one statement, so a token works exactly once. */
  consumeToken(tokenHash: string, purpose: string): number | undefined {
    const row = this.db.prepare(`UPDATE user_tokens SET used_at = ? WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
                                 RETURNING user_id`).get(this.#iso(0), tokenHash, purpose, this.#iso(0)) as { user_id: number } | undefined;
    return row?.user_id;
  }

  /** Whether a token would still be accepted (the set-password page checks before showing its form). */
  tokenLive(tokenHash: string, purpose: string): boolean {
    return this.db.prepare('SELECT 1 FROM user_tokens WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?')
      .get(tokenHash, purpose, this.#iso(0)) !== undefined;
  }

  addSession(tokenHash: string, userId: number, csrfToken: string, ttlMs: number): void {
    this.db.prepare('INSERT INTO user_sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)')
      .run(tokenHash, userId, csrfToken, this.#iso(0), this.#iso(ttlMs));
  }

  session(tokenHash: string): SessionRow | undefined {
    const row = this.db.prepare('SELECT user_id, csrf_token, expires_at FROM user_sessions WHERE token_hash = ? AND expires_at > ?')
      .get(tokenHash, this.#iso(0)) as { user_id: number; csrf_token: string; expires_at: string } | undefined;
    return row && { userId: row.user_id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  deleteSession(tokenHash: string): void {
    this.db.prepare('DELETE FROM user_sessions WHERE token_hash = ?').run(tokenHash);
  }

  deleteSessionsOf(userId: number): void {
    this.db.prepare('DELETE FROM user_sessions WHERE user_id = ?').run(userId);
  }

  deleteExpired(): void {
    this.db.prepare('DELETE FROM user_sessions WHERE expires_at <= ?').run(this.#iso(0));
  }

  #iso(offsetMs: number): string { return new Date(this.clock.now() + offsetMs).toISOString(); }
}
