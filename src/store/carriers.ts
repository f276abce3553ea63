import type { SqlDb, SqlQueries } from './sql.js';
import type { Clock } from '../clock.js';
import { ReadCache, type CacheInvalidation } from './read-cache.js';
import { E164_RULES, type NumberRules } from '../net/number-rules.js';

export type CarrierTransport = 'udp' | 'tcp' | 'tls';
export type DtmfMode = 'rfc2833' | 'info' | 'inband';
/** SRTP on the carrier's calls: none, offered beside RTP, or required (TLS gateways only). */
export type SrtpMode = 'off' | 'offered' | 'required';

/** Where a carrier's calls come from: an address or a CIDR range as the operator wrote it, and a port or any. */
export interface CarrierSource { network: string; port: number | null }

/** Where calls to numbers go. Lower priorities are tried first; among equal ones, weights share the first tries. */
export interface CarrierGateway { host: string; port: number | null; transport: CarrierTransport; priority: number; weight: number }

/** host[:port] as people write it: IPv6 in brackets, no port when none is set. */
export const hostAndPort = (host: string, port: number | null): string => `${host.includes(':') ? `[${host}]` : host}${port === null ? '' : `:${port}`}`;

/** host:port of a gateway, the transport's default port (5060; 5061 for TLS) when none is set. */
export const gatewayAddress = (g: Pick<CarrierGateway, 'host' | 'port' | 'transport'>): string =>
  hostAndPort(g.host, g.port ?? (g.transport === 'tls' ? 5061 : 5060));

/** How health checks, timelines and the operator's pages name a gateway: `carrier/transport:host:port`. */
export const gatewayKey = (carrier: string, g: Pick<CarrierGateway, 'host' | 'port' | 'transport'>): string => `${carrier}/${g.transport}:${gatewayAddress(g)}`;

/** Numbers starting with `prefix` ('' takes every number) may go to this carrier: longest prefix, then priority, then weight. */
export interface CarrierRoute { prefix: string; priority: number; weight: number }

/** Digest credentials for the carrier's challenges; the password only ever sealed here. */
export interface CarrierAuth { username: string; passwordSealed: string; realm: string | null }

/** The platform registers to the provider with the carrier's credentials (its calls then arrive on that registration). */
export interface CarrierRegistration { host: string; port: number | null; transport: CarrierTransport; expires: number }

export interface CarrierSettings {
  sources: CarrierSource[];
  gateways: CarrierGateway[];
  routes: CarrierRoute[];
  auth: CarrierAuth | null;
  registration: CarrierRegistration | null;
  numbers: NumberRules;
  dtmf: DtmfMode;
  /** Codec names in order of preference (FreeSWITCH's names, e.g. PCMU, PCMA, OPUS); empty: the media server's own. */
  codecs: string[];
  srtp: SrtpMode;
  /** Seconds between SIP OPTIONS to each gateway (a gateway not answering is skipped until it answers); null: none sent. */
  optionsPingS: number | null;
}

export interface Carrier extends CarrierSettings {
  id: number;
  name: string;
  createdAt: string;
}

interface Row {
  id: number; name: string; created_at: string;
  auth_username: string | null; auth_password_sealed: string | null; auth_realm: string | null;
  registration: string | null; number_rules: string | null; dtmf: DtmfMode; codecs: string | null; srtp: SrtpMode; options_ping_s: number | null;
}
interface SourceRow { carrier_id: number; network: string; port: number | null }
interface GatewayRow { carrier_id: number; host: string; port: number | null; transport: CarrierTransport; priority: number; weight: number }
interface RouteRow { carrier_id: number; prefix: string; priority: number; weight: number }

export class CarrierNameTakenError extends Error {
  constructor(name: string) { super(`a carrier named "${name}" already exists`); }
}

const ALL = 'all';

export class CarrierRepo {
  // Read on every SIP call (inbound trust, outbound routes), written only by the operator.
  readonly #cache: ReadCache<{ carriers: Carrier[] }>;

  constructor(private readonly sql: SqlDb, private readonly clock: Clock, changes: CacheInvalidation) {
    this.#cache = new ReadCache(changes, 'carriers');
  }

  /** The name is unique: of two adds of one name at once (two nodes), one gets CarrierNameTakenError. */
  async add(name: string, settings: CarrierSettings): Promise<Carrier> {
    const id = await this.#cache.write(this.sql, async (tx) => {
      const row = await tx.one<{ id: number }>(
        'INSERT INTO carriers (name, created_at) VALUES (?, ?) ON CONFLICT (name) DO NOTHING RETURNING id',
        [name, new Date(this.clock.now()).toISOString()],
      );
      if (!row) throw new CarrierNameTakenError(name);
      await writeSettings(tx, row.id, settings);
      return row.id;
    });
    return (await this.get(id))!;
  }

  /** Replaces every setting of the carrier named `name`; undefined when there is none. */
  async update(name: string, settings: CarrierSettings): Promise<Carrier | undefined> {
    const id = await this.#cache.write(this.sql, async (tx) => {
      const row = await tx.one<{ id: number }>('SELECT id FROM carriers WHERE name = ?', [name]);
      if (!row) return undefined;
      await deleteChildren(tx, row.id);
      await writeSettings(tx, row.id, settings);
      return row.id;
    });
    return id === undefined ? undefined : this.get(id);
  }

  async get(id: number): Promise<Carrier | undefined> {
    return (await this.list()).find((c) => c.id === id);
  }

  async byName(name: string): Promise<Carrier | undefined> {
    return (await this.list()).find((c) => c.name === name);
  }

  /** Every carrier with its sources, gateways and routes, in the order they were added. Shared and frozen: do not change. */
  async list(): Promise<readonly Carrier[]> {
    const cached = await this.#cache.read(ALL, async () => ({ carriers: await this.#load() }));
    return cached!.carriers;
  }

  async remove(name: string): Promise<boolean> {
    return this.#cache.write(this.sql, async (tx) => {
      const row = await tx.one<{ id: number }>('SELECT id FROM carriers WHERE name = ?', [name]);
      if (!row) return false;
      await deleteChildren(tx, row.id);
      await tx.run('DELETE FROM carriers WHERE id = ?', [row.id]);
      return true;
    });
  }

  async #load(): Promise<Carrier[]> {
    // One after another: a connection takes one query at a time (the cache makes this a rare read anyway).
    const rows = await this.sql.all<Row>('SELECT * FROM carriers ORDER BY id');
    const sources = await this.sql.all<SourceRow>('SELECT carrier_id, network, port FROM carrier_sources ORDER BY id');
    const gateways = await this.sql.all<GatewayRow>('SELECT carrier_id, host, port, transport, priority, weight FROM carrier_gateways ORDER BY id');
    const routes = await this.sql.all<RouteRow>('SELECT carrier_id, prefix, priority, weight FROM carrier_routes ORDER BY id');
    const of = <T extends { carrier_id: number }>(all: T[], id: number) => all.filter((r) => r.carrier_id === id);
    return rows.map((r) => ({
      id: r.id, name: r.name, createdAt: r.created_at,
      sources: of(sources, r.id).map((s) => ({ network: s.network, port: s.port })),
      gateways: of(gateways, r.id).map((g) => ({ host: g.host, port: g.port, transport: g.transport, priority: g.priority, weight: g.weight })),
      routes: of(routes, r.id).map((x) => ({ prefix: x.prefix, priority: x.priority, weight: x.weight })),
      auth: r.auth_username !== null && r.auth_password_sealed !== null ? { username: r.auth_username, passwordSealed: r.auth_password_sealed, realm: r.auth_realm } : null,
      registration: r.registration === null ? null : JSON.parse(r.registration) as CarrierRegistration,
      numbers: r.number_rules === null ? E164_RULES : JSON.parse(r.number_rules) as NumberRules,
      dtmf: r.dtmf,
      codecs: r.codecs === null || r.codecs === '' ? [] : r.codecs.split(','),
      srtp: r.srtp,
      optionsPingS: r.options_ping_s,
    }));
  }
}

async function deleteChildren(tx: SqlQueries, id: number): Promise<void> {
  for (const table of ['carrier_sources', 'carrier_gateways', 'carrier_routes']) await tx.run(`DELETE FROM ${table} WHERE carrier_id = ?`, [id]);
}

async function writeSettings(tx: SqlQueries, id: number, s: CarrierSettings): Promise<void> {
  await tx.run(
    `UPDATE carriers SET auth_username = ?, auth_password_sealed = ?, auth_realm = ?, registration = ?, number_rules = ?, dtmf = ?, codecs = ?, srtp = ?,
     options_ping_s = ? WHERE id = ?`,
    [s.auth?.username ?? null, s.auth?.passwordSealed ?? null, s.auth?.realm ?? null, s.registration ? JSON.stringify(s.registration) : null,
      JSON.stringify(s.numbers), s.dtmf, s.codecs.length ? s.codecs.join(',') : null, s.srtp, s.optionsPingS, id],
  );
  for (const src of s.sources) await tx.run('INSERT INTO carrier_sources (carrier_id, network, port) VALUES (?, ?, ?)', [id, src.network, src.port]);
  for (const g of s.gateways) {
    await tx.run('INSERT INTO carrier_gateways (carrier_id, host, port, transport, priority, weight) VALUES (?, ?, ?, ?, ?, ?)', [id, g.host, g.port, g.transport, g.priority, g.weight]);
  }
  for (const r of s.routes) await tx.run('INSERT INTO carrier_routes (carrier_id, prefix, priority, weight) VALUES (?, ?, ?, ?)', [id, r.prefix, r.priority, r.weight]);
}

/**
 * The simplest carrier: one address that is both the trusted source of its calls (any source port when `port` is
 * null) and its one gateway over UDP (5060 when null), routing numbers that start with `prefix` (every number when null).
 */
export function carrierAtAddress(host: string, port: number | null, prefix: string | null): CarrierSettings {
  return {
    sources: [{ network: host, port }], gateways: [{ host, port, transport: 'udp', priority: 0, weight: 1 }],
    routes: [{ prefix: prefix ?? '', priority: 0, weight: 1 }],
    auth: null, registration: null, numbers: E164_RULES, dtmf: 'rfc2833', codecs: [], srtp: 'off', optionsPingS: null,
  };
}
