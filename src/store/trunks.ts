import { rowLock, type SqlDb, type SqlValue } from './sql.js';
import type { Clock } from '../clock.js';
import { ReadCache, type CacheInvalidation } from './read-cache.js';

export type TrunkStatus = 'pending' | 'active' | 'suspended' | 'revoked';
export type Transport = 'tcp' | 'tls' | 'udp' | 'wss';
export type HttpMethod = 'POST' | 'GET';

/** The fields an account holder may set (create and update). */
export interface TrunkSettings {
  label: string | null;
  client_ref: string | null;
  sip_domain: string | null;
  voice_webhook_url: string | null;
  voice_webhook_method: HttpMethod;
  voice_fallback_url: string | null;
  voice_fallback_method: HttpMethod;
  voice_refer_url: string | null;
  voice_refer_method: HttpMethod;
  cli_lookup_url: string | null;
  cli_lookup_method: HttpMethod;
  default_caller_id: string | null;
  status_callback_url: string | null;
  status_callback_events: string;
  hangup_url: string | null;
  dual_channel_recording: boolean;
  allowed_caller_ids: string[] | null;
}

export interface Trunk extends TrunkSettings {
  id: number;
  accountId: number;
  status: TrunkStatus;
  endpoint_name: string;
  transport: Transport;
  status_callback_format: string | null;
  sipPasswordSealed: string;
  created_at: string;
  updated_at: string;
}

export const SETTING_COLUMNS = [
  'label', 'client_ref', 'sip_domain', 'voice_webhook_url', 'voice_webhook_method', 'voice_fallback_url', 'voice_fallback_method', 'voice_refer_url', 'voice_refer_method', 'cli_lookup_url',
  'cli_lookup_method', 'default_caller_id', 'status_callback_url', 'status_callback_events', 'hangup_url',
  'dual_channel_recording', 'allowed_caller_ids',
] as const satisfies readonly (keyof TrunkSettings)[];

type Row = Omit<Trunk, 'accountId' | 'sipPasswordSealed' | 'dual_channel_recording' | 'allowed_caller_ids'> & {
  account_id: number; sip_password_enc: string; dual_channel_recording: number; allowed_caller_ids: string | null;
};

// Field by field: rows come from the database as dictionary-mode objects, and rest/spread over them cost ~15 µs a row.
function toTrunk(r: Row): Trunk {
  return {
    id: r.id, accountId: r.account_id, status: r.status, endpoint_name: r.endpoint_name, transport: r.transport,
    sipPasswordSealed: r.sip_password_enc, label: r.label, client_ref: r.client_ref, sip_domain: r.sip_domain,
    voice_webhook_url: r.voice_webhook_url, voice_webhook_method: r.voice_webhook_method,
    voice_fallback_url: r.voice_fallback_url, voice_fallback_method: r.voice_fallback_method,
    voice_refer_url: r.voice_refer_url, voice_refer_method: r.voice_refer_method,
    cli_lookup_url: r.cli_lookup_url, cli_lookup_method: r.cli_lookup_method, default_caller_id: r.default_caller_id,
    status_callback_url: r.status_callback_url, status_callback_events: r.status_callback_events,
    status_callback_format: r.status_callback_format, hangup_url: r.hangup_url,
    dual_channel_recording: r.dual_channel_recording === 1,
    allowed_caller_ids: r.allowed_caller_ids === null ? null : (JSON.parse(r.allowed_caller_ids) as string[]),
    created_at: r.created_at, updated_at: r.updated_at,
  };
}

function toColumn(name: (typeof SETTING_COLUMNS)[number], value: unknown): SqlValue {
  if (name === 'dual_channel_recording') return value ? 1 : 0;
  if (name === 'allowed_caller_ids') return value === null ? null : JSON.stringify(value);
  return value as SqlValue;
}

export class CapacityExceededError extends Error {
  constructor(readonly capacity: number) { super(`trunk capacity of ${capacity} reached`); }
}

export class TrunkRepo {
  // Every request of the trunks API and every trunk call reads trunks; they change rarely.
  readonly #cache: ReadCache<Trunk | Trunk[]>;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, changes: CacheInvalidation) {
    this.#cache = new ReadCache(changes, 'trunks');
  }

  /**
   * Counts and inserts in one transaction holding the account's row (locked on PostgreSQL; SQLite's one writer
   * holds everything), so concurrent creates cannot overshoot the capacity.
   */
  async create(input: {
    accountId: number; capacity: number; endpointName: string; sipPasswordSealed: string;
    transport: Transport; settings: TrunkSettings;
  }): Promise<Trunk> {
    const now = this.#now();
    const columns = ['account_id', 'status', 'endpoint_name', 'sip_password_enc', 'transport', 'created_at', 'updated_at', ...SETTING_COLUMNS];
    const values: SqlValue[] = [
      input.accountId, 'pending', input.endpointName, input.sipPasswordSealed, input.transport, now, now,
      ...SETTING_COLUMNS.map((c) => toColumn(c, input.settings[c])),
    ];
    const row = await this.#cache.write(this.sql, async (tx) => {
      await tx.one(`SELECT id FROM accounts WHERE id = ?${rowLock(tx)}`, [input.accountId]);
      const held = await tx.one<{ n: number }>("SELECT count(*) AS n FROM trunks WHERE account_id = ? AND status != 'revoked'", [input.accountId]);
      if (held!.n >= input.capacity) throw new CapacityExceededError(input.capacity);
      return tx.one<Row>(`INSERT INTO trunks (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')}) RETURNING *`, values);
    });
    return toTrunk(row!);
  }

  /** Trunks that occupy capacity: every one not revoked. */
  async countHeld(accountId: number): Promise<number> {
    return (await this.sql.one<{ n: number }>("SELECT count(*) AS n FROM trunks WHERE account_id = ? AND status != 'revoked'", [accountId]))!.n;
  }

  getById(id: number): Promise<Trunk | undefined> {
    return this.#cache.read(`id ${id}`, async () => {
      const row = await this.sql.one<Row>('SELECT * FROM trunks WHERE id = ?', [id]);
      return row && toTrunk(row);
    }) as Promise<Trunk | undefined>;
  }

  async getForAccount(accountId: number, id: number): Promise<Trunk | undefined> {
    const trunk = await this.getById(id);
    return trunk?.accountId === accountId ? trunk : undefined;
  }

  getByEndpointName(endpointName: string): Promise<Trunk | undefined> {
    return this.#cache.read(`endpoint ${endpointName}`, async () => {
      const row = await this.sql.one<Row>('SELECT * FROM trunks WHERE endpoint_name = ?', [endpointName]);
      return row && toTrunk(row);
    }) as Promise<Trunk | undefined>;
  }

  /** Newest first; the array is shared and frozen. */
  listForAccount(accountId: number): Promise<readonly Trunk[]> {
    return this.#cache.read(`account ${accountId}`, async () =>
      (await this.sql.all<Row>('SELECT * FROM trunks WHERE account_id = ? ORDER BY id DESC', [accountId])).map(toTrunk)) as Promise<Trunk[]>;
  }

  async listByStatus(status: TrunkStatus): Promise<Trunk[]> {
    return (await this.sql.all<Row>('SELECT * FROM trunks WHERE status = ? ORDER BY id', [status])).map(toTrunk);
  }

  async updateSettings(id: number, changes: Partial<TrunkSettings>): Promise<Trunk> {
    const names = SETTING_COLUMNS.filter((c) => c in changes);
    if (names.length === 0) return (await this.getById(id))!;
    const row = await this.#cache.write(this.sql, (tx) => tx.one<Row>(
      `UPDATE trunks SET ${names.map((c) => `${c} = ?`).join(', ')}, updated_at = ? WHERE id = ? RETURNING *`,
      [...names.map((c) => toColumn(c, changes[c])), this.#now(), id],
    ));
    return toTrunk(row!);
  }

  /** Moves status only from one of `from`, so a late provisioning result cannot resurrect a revoked trunk. */
  async transition(id: number, from: TrunkStatus[], to: TrunkStatus): Promise<boolean> {
    const now = this.#now();
    const info = await this.#cache.write(this.sql, (tx) => tx.run(
      `UPDATE trunks SET status = ?, updated_at = ?, revoked_at = COALESCE(?, revoked_at) WHERE id = ? AND status IN (${from.map(() => '?').join(', ')})`,
      [to, now, to === 'revoked' ? now : null, id, ...from],
    ));
    return info.changes === 1;
  }

  #now(): string { return new Date(this.clock.now()).toISOString(); }
}
