// Every process's one LISTEN connection on PostgreSQL, outside the pool (a pooled connection would be handed to
// queries and its LISTEN lost), for two things:
// - Read caches across processes: a write to a cached table sends NOTIFY on the table's channel in the write's own
//   transaction (PostgreSQL delivers it on commit, never for a rollback), and every process forgets that table's
//   cached reads when a notification arrives. While the connection is down, notifications may be missed: the caches
//   are bypassed until it is back, and start empty then.
// - Signals between the control planes (signals.ts): a message on a topic, from one process to all the others.
import { EventEmitter } from 'node:events';
import pg from 'pg';
import type { SqlQueries } from './sql.js';
import type { CacheInvalidation } from './read-cache.js';
import type { Signals, SignalTopic } from './signals.js';

const CHANNEL_PREFIX = 'ringbase_cache_';
const SIGNAL_CHANNEL = 'ringbase_signal';
/** Shown in pg_stat_activity, so an operator can tell this connection from the pool's. */
export const LISTENER_APPLICATION_NAME = 'ringbase-listener';

/** The channel named after `table`; table names are the store's own constants, checked anyway since LISTEN cannot take a parameter. */
function channelOf(table: string): string {
  if (!/^[a-z_]{1,40}$/.test(table)) throw new Error(`not a cacheable table name: ${table}`);
  return CHANNEL_PREFIX + table;
}

export interface ListenerOptions {
  url: string;
  /** This process's instance id: its own signals are not handed back to it. */
  self: string;
  /** How long to wait before connecting again after the connection dropped or could not be made. */
  retryMs?: number;
}

/**
 * The PostgreSQL CacheInvalidation. Emits 'up' once it is connected and listens (again), 'listen' when a table's
 * LISTEN is in place, 'down' when its connection is lost.
 * A table's version is null until its LISTEN is in place, and every version taken after a reconnection differs
 * from all before it, so nothing remembered across a gap is served.
 */
export class PostgresListener extends EventEmitter implements CacheInvalidation, Signals {
  readonly #url: string;
  readonly #self: string;
  readonly #retryMs: number;
  readonly #signals = new EventEmitter();
  /** Tables asked about, listened to again after every reconnection. */
  readonly #tables = new Set<string>();
  /** Versions of the tables whose LISTEN is in place on the current connection. */
  readonly #versions = new Map<string, number>();
  #counter = 0;
  #client: pg.Client | null = null;
  #retry: NodeJS.Timeout | null = null;
  #closed = false;

  constructor(opts: ListenerOptions) {
    super();
    this.#url = opts.url;
    this.#self = opts.self;
    this.#retryMs = opts.retryMs ?? 1_000;
    void this.#connect();
  }

  /** The backend process id of the listening connection, or null while it is down. */
  get backendPid(): number | null {
    return this.#client ? (this.#client as pg.Client & { processID: number }).processID : null;
  }

  version(table: string): number | null {
    if (!this.#tables.has(table)) {
      this.#tables.add(table);
      // A failure here is the connection's loss, which its own handlers deal with; the table stays uncached.
      if (this.#client) this.#listen(this.#client, [table]).catch(() => undefined);
    }
    return this.#versions.get(table) ?? null;
  }

  async announce(q: SqlQueries, table: string): Promise<void> {
    await q.run('SELECT pg_notify(?, ?)', [channelOf(table), '']);
  }

  async send(q: SqlQueries, topic: SignalTopic, message: string): Promise<void> {
    await q.run('SELECT pg_notify(?, ?)', [SIGNAL_CHANNEL, JSON.stringify({ from: this.#self, topic, message })]);
  }

  subscribe(topic: SignalTopic, handler: (message: string) => void): () => void {
    this.#signals.on(topic, handler);
    return () => { this.#signals.off(topic, handler); };
  }

  /** Resolves once this process listens on `tables` (so a write committed afterwards reaches it). */
  async listening(tables: readonly string[]): Promise<void> {
    for (const table of tables) this.version(table);
    while (!tables.every((table) => this.#versions.has(table))) {
      if (this.#closed) throw new Error('the cache listener is closed');
      await new Promise<void>((resolve) => {
        const wake = () => { this.off('listen', wake); this.off('closed', wake); resolve(); };
        this.on('listen', wake);
        this.on('closed', wake);
      });
    }
  }

  async close(): Promise<void> {
    this.#closed = true;
    if (this.#retry) clearTimeout(this.#retry);
    const client = this.#client;
    this.#down();
    this.emit('closed');
    await client?.end().catch(() => undefined);
  }

  async #connect(): Promise<void> {
    this.#retry = null;
    const client = new pg.Client({ connectionString: this.#url, application_name: LISTENER_APPLICATION_NAME, keepAlive: true });
    // A lost connection (server restart, failover, terminated backend) reports 'error' and/or 'end'.
    const lost = () => { if (this.#client === client) { this.#down(); this.emit('down'); this.#scheduleRetry(); } };
    client.on('error', lost);
    client.on('end', lost);
    client.on('notification', (msg) => {
      if (this.#client !== client) return;
      if (msg.channel === SIGNAL_CHANNEL) return this.#signal(msg.payload);
      if (!msg.channel.startsWith(CHANNEL_PREFIX)) return;
      const table = msg.channel.slice(CHANNEL_PREFIX.length);
      if (this.#versions.has(table)) this.#versions.set(table, ++this.#counter);
    });
    try {
      await client.connect();
      if (this.#closed) { await client.end(); return; }
      this.#client = client;
      await client.query(`LISTEN ${SIGNAL_CHANNEL}`);
      await this.#listen(client, [...this.#tables]);
      if (this.#client === client) this.emit('up');
    } catch {
      client.removeAllListeners('end');
      await client.end().catch(() => undefined);
      if (this.#client === client) this.#down();
      if (!this.#closed) this.#scheduleRetry();
    }
  }

  async #listen(client: pg.Client, tables: string[]): Promise<void> {
    for (const table of tables) {
      await client.query(`LISTEN ${channelOf(table)}`);
      // Only now may reads be remembered: a write committed before this LISTEN was not announced to us.
      if (this.#client === client) this.#versions.set(table, ++this.#counter);
    }
    if (tables.length) this.emit('listen');
  }

  /** A peer's signal to this process's subscribers; its own, and anything malformed, are dropped. */
  #signal(payload: string | undefined): void {
    let parsed: { from?: unknown; topic?: unknown; message?: unknown };
    try { parsed = JSON.parse(payload ?? '') as typeof parsed; } catch { return; }
    if (parsed.from === this.#self || typeof parsed.topic !== 'string' || typeof parsed.message !== 'string') return;
    this.#signals.emit(parsed.topic, parsed.message);
  }

  #down(): void {
    this.#client = null;
    this.#versions.clear();
  }

  #scheduleRetry(): void {
    if (this.#closed || this.#retry) return;
    this.#retry = setTimeout(() => void this.#connect(), this.#retryMs);
    this.#retry.unref();
  }
}
