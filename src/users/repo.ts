import type { SqlDb } from '../store/sql.js';
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

/**
 * An email as stored and looked up: lower-cased, so that both backends agree (SQLite's column also compares without
 * case, so rows stored before this still match; PostgreSQL has no such collation).
 */
const emailKey = (email: string): string => email.toLowerCase();

/** Dashboard users, their one-time tokens and their sessions. Tokens are stored only as SHA-256 hashes. */
export class UserRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /** The new user, or undefined when the email is taken (also by a create that raced this one). */
  async create(accountId: number, email: string): Promise<User | undefined> {
    const row = await this.sql.one<Row>('INSERT INTO users (account_id, email, created_at) VALUES (?, ?, ?) ON CONFLICT (email) DO NOTHING RETURNING *',
      [accountId, emailKey(email), this.#iso(0)]);
    return row && toUser(row);
  }

  async get(id: number): Promise<User | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM users WHERE id = ?', [id]);
    return row && toUser(row);
  }

  async getByEmail(email: string): Promise<User | undefined> {
    const row = await this.sql.one<Row>('SELECT * FROM users WHERE email = ?', [emailKey(email)]);
    return row && toUser(row);
  }

  async listForAccount(accountId: number): Promise<User[]> {
    return (await this.sql.all<Row>('SELECT * FROM users WHERE account_id = ? ORDER BY id', [accountId])).map(toUser);
  }

  async setPasswordHash(id: number, hash: string): Promise<void> {
    await this.sql.run('UPDATE users SET password_hash = ? WHERE id = ?', [hash, id]);
  }

  async addToken(tokenHash: string, userId: number, purpose: string, ttlMs: number): Promise<void> {
    await this.sql.run('INSERT INTO user_tokens (token_hash, user_id, purpose, expires_at) VALUES (?, ?, ?, ?)', [tokenHash, userId, purpose, this.#iso(ttlMs)]);
  }

  /** Marks a live token used and returns its user, in one statement, so a token works exactly once. */
  async consumeToken(tokenHash: string, purpose: string): Promise<number | undefined> {
    const row = await this.sql.one<{ user_id: number }>(`UPDATE user_tokens SET used_at = ? WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?
                                 RETURNING user_id`, [this.#iso(0), tokenHash, purpose, this.#iso(0)]);
    return row?.user_id;
  }

  /** Whether a token would still be accepted (the set-password page checks before showing its form). */
  async tokenLive(tokenHash: string, purpose: string): Promise<boolean> {
    return (await this.sql.one('SELECT 1 AS live FROM user_tokens WHERE token_hash = ? AND purpose = ? AND used_at IS NULL AND expires_at > ?',
      [tokenHash, purpose, this.#iso(0)])) !== undefined;
  }

  async addSession(tokenHash: string, userId: number, csrfToken: string, ttlMs: number): Promise<void> {
    await this.sql.run('INSERT INTO user_sessions (token_hash, user_id, csrf_token, created_at, expires_at) VALUES (?, ?, ?, ?, ?)',
      [tokenHash, userId, csrfToken, this.#iso(0), this.#iso(ttlMs)]);
  }

  async session(tokenHash: string): Promise<SessionRow | undefined> {
    const row = await this.sql.one<{ user_id: number; csrf_token: string; expires_at: string }>(
      'SELECT user_id, csrf_token, expires_at FROM user_sessions WHERE token_hash = ? AND expires_at > ?', [tokenHash, this.#iso(0)],
    );
    return row && { userId: row.user_id, csrfToken: row.csrf_token, expiresAt: row.expires_at };
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.sql.run('DELETE FROM user_sessions WHERE token_hash = ?', [tokenHash]);
  }

  async deleteSessionsOf(userId: number): Promise<void> {
    await this.sql.run('DELETE FROM user_sessions WHERE user_id = ?', [userId]);
  }

  async deleteExpired(): Promise<void> {
    await this.sql.run('DELETE FROM user_sessions WHERE expires_at <= ?', [this.#iso(0)]);
  }

  #iso(offsetMs: number): string { return new Date(this.clock.now() + offsetMs).toISOString(); }
}
