// Webhook subscriptions (`WH...`): where one event type of one account is delivered, and how.
import type { SqlDb, SqlValue } from '../store/sql.js';
import type { Clock } from '../clock.js';
import { newSid, randomToken } from '../crypto/tokens.js';
import type { EventType } from './lifecycle.js';
import type { SealedHeaders } from './subscription-headers.js';

export type DeliveryMode = 'sync' | 'async';

/** A subscription's signing secret in clear: shown once to its creator, stored only sealed. */
export const newSubscriptionSecret = () => `whsec_${randomToken(32)}`;
export type SubscriptionStatus = 'active' | 'paused';

export interface Subscription {
  id: number;
  sid: string;
  accountId: number;
  eventType: EventType;
  targetUrl: string;
  /** Header names with masked values (subscription-headers.ts); the real values are only in headersSealed. */
  headers: Record<string, string>;
  headersSealed: string | null;
  deliveryMode: DeliveryMode;
  timeoutMs: number;
  maxRetries: number;
  secretSealed: string;
  payloadTemplate: string | null;
  status: SubscriptionStatus;
  createdAt: string;
  updatedAt: string;
}

export type SubscriptionChanges = Partial<Pick<Subscription,
  'targetUrl' | 'deliveryMode' | 'timeoutMs' | 'maxRetries' | 'payloadTemplate' | 'status'> & { headers: SealedHeaders }>;

export interface SubscriptionRow {
  id: number; sid: string; account_id: number; event_type: EventType; target_url: string; headers: string; headers_enc: string | null;
  delivery_mode: DeliveryMode; timeout_ms: number; max_retries: number; secret_enc: string;
  payload_template: string | null; status: SubscriptionStatus; created_at: string; updated_at: string;
}

export const toSubscription = (r: SubscriptionRow): Subscription => ({
  id: r.id, sid: r.sid, accountId: r.account_id, eventType: r.event_type, targetUrl: r.target_url,
  headers: JSON.parse(r.headers) as Record<string, string>, headersSealed: r.headers_enc, deliveryMode: r.delivery_mode, timeoutMs: r.timeout_ms,
  maxRetries: r.max_retries, secretSealed: r.secret_enc, payloadTemplate: r.payload_template, status: r.status,
  createdAt: r.created_at, updatedAt: r.updated_at,
});

export class SubscriptionExistsError extends Error {
  override name = 'SubscriptionExistsError';
  constructor(readonly eventType: EventType, readonly existingSid: string) {
    super(`a subscription for ${eventType} already exists`);
  }
}

const COLUMNS: Record<Exclude<keyof SubscriptionChanges, 'headers'>, string> = {
  targetUrl: 'target_url', deliveryMode: 'delivery_mode', timeoutMs: 'timeout_ms',
  maxRetries: 'max_retries', payloadTemplate: 'payload_template', status: 'status',
};

export class SubscriptionRepo {
  constructor(private readonly sql: SqlDb, private readonly clock: Clock) {}

  /**
   * Custom headers come sealed (sealHeaders); left out, there are none. One subscription per account and event
   * type: the unique index decides between concurrent creates, the loser is told which one exists.
   */
  async create(input: Omit<Subscription, 'id' | 'sid' | 'status' | 'createdAt' | 'updatedAt' | 'headers' | 'headersSealed'> & { headers?: SealedHeaders }): Promise<Subscription> {
    const sid = newSid('WH');
    const now = this.#now();
    const inserted = await this.sql.run(`INSERT INTO webhook_subscriptions (sid, account_id, event_type, target_url, headers, headers_enc,
      delivery_mode, timeout_ms, max_retries, secret_enc, payload_template, status, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'active', ?, ?)
      ON CONFLICT (account_id, event_type) DO NOTHING`,
    [sid, input.accountId, input.eventType, input.targetUrl, JSON.stringify(input.headers?.masks ?? {}), input.headers?.sealed ?? null, input.deliveryMode,
      input.timeoutMs, input.maxRetries, input.secretSealed, input.payloadTemplate, now, now]);
    if (inserted.changes === 0) {
      const existing = await this.forEventType(input.accountId, input.eventType);
      throw new SubscriptionExistsError(input.eventType, existing?.sid ?? '');
    }
    return (await this.getForAccount(input.accountId, sid))!;
  }

  async getForAccount(accountId: number, sid: string): Promise<Subscription | undefined> {
    const row = await this.sql.one<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE sid = ? AND account_id = ?', [sid, accountId]);
    return row && toSubscription(row);
  }

  async forEventType(accountId: number, type: EventType): Promise<Subscription | undefined> {
    const row = await this.sql.one<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE account_id = ? AND event_type = ?', [accountId, type]);
    return row && toSubscription(row);
  }

  /** Newest first; `beforeId` is the cursor (the id of the last row of the previous page). */
  async listForAccount(accountId: number, page: { beforeId: number | null; limit: number }): Promise<Subscription[]> {
    return (await this.sql.all<SubscriptionRow>('SELECT * FROM webhook_subscriptions WHERE account_id = ? AND (CAST(? AS BIGINT) IS NULL OR id < ?) ORDER BY id DESC LIMIT ?',
      [accountId, page.beforeId, page.beforeId, page.limit])).map(toSubscription);
  }

  /** One UPDATE of the changed columns only, so concurrent changes of different fields are all kept. */
  async update(sub: Subscription, changes: SubscriptionChanges): Promise<Subscription> {
    const sets: string[] = [];
    const args: SqlValue[] = [];
    for (const [key, column] of Object.entries(COLUMNS) as [Exclude<keyof SubscriptionChanges, 'headers'>, string][]) {
      const value = changes[key];
      if (value === undefined) continue;
      sets.push(`${column} = ?`);
      args.push(value);
    }
    if (changes.headers) {
      sets.push('headers = ?', 'headers_enc = ?');
      args.push(JSON.stringify(changes.headers.masks), changes.headers.sealed);
    }
    if (sets.length > 0) {
      await this.sql.run(`UPDATE webhook_subscriptions SET ${sets.join(', ')}, updated_at = ? WHERE id = ?`, [...args, this.#now(), sub.id]);
    }
    return (await this.getForAccount(sub.accountId, sub.sid))!;
  }

  /** Deliveries and their attempt log go with it (ON DELETE CASCADE), which drops pending retries. */
  async delete(sub: Subscription): Promise<void> {
    await this.sql.run('DELETE FROM webhook_subscriptions WHERE id = ?', [sub.id]);
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
