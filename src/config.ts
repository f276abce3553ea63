// The only module that reads environment variables and configuration files.
import { readFileSync, existsSync, mkdirSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseCidr } from './net/cidr.js';
import { readOrCreatePrivateFile } from './private-files.js';

export type EngineKind = 'sandbox' | 'drachtio';

export interface Config {
  host: string;
  /** The HTTP port; with PORT as a range ("8080-8089"), its first, and the node takes the first free one up to portLast. */
  port: number;
  portLast: number;
  dataDir: string;
  /** url: PostgreSQL (postgres:// or postgresql://); null: the SQLite file in dataDir. poolSize: connections kept at most. */
  database: { url: string | null; poolSize: number };
  publicBaseUrl: string | null;
  /**
   * Where the other control planes on the same database reach this one's HTTP listener (an origin: scheme, host,
   * port), to forward commands for the calls it carries; null: the listen host and port (docs/cluster.md).
   */
  nodeUrl: string | null;
  /** How long a draining node (SIGTERM, `ringbase node drain`) lets its calls go on before it hangs them up. */
  drainSeconds: number;
  /** A token for Prometheus: with it (or the operator token) /metrics adds the per-account series. */
  metricsToken: string | null;
  logLevel: string;
  sip: { host: string; udpPort: number; tcpPort: number; tlsPort: number; wssPort: number; wssPath: string };
  turn: { host: string | null; stunPort: number; turnPort: number; turnsPort: number; secret: string | null; ttlSeconds: number };
  /** selfSigned: generate a certificate once into the data dir when no cert/key files are given. */
  tls: { certFile: string | null; keyFile: string | null; selfSigned: boolean };
  /** Peers (IPs/CIDRs) whose X-Forwarded-Proto and X-Forwarded-For are believed. */
  trustedProxies: string[];
  /** Per-API-key fixed-window rate limit on the preview root (/v1). */
  preview: { rateLimit: number; rateWindowSeconds: number };
  accounts: { defaultTrunkCapacity: number };
  engine: {
    kind: EngineKind;
    drachtio: { host: string; port: number; secret: string };
    freeswitch: { host: string; port: number; password: string };
    /** Every media server: FREESWITCH_SERVERS, or the one FREESWITCH_HOST/PORT/PASSWORD name. */
    mediaServers: Array<{ host: string; port: number; password: string }>;
    /** Where FreeSWITCH's outbound event socket connections reach this process (drachtio-fsmrf listens here). */
    media: { listenAddress: string; listenPort: number; advertisedAddress: string | null };
  };
  devAllowLocalTargets: boolean;
  /** Customer media fetched for <Play> (and later hold and wait audio): disk budget and largest download, in MiB. */
  mediaCache: { maxMb: number; maxFileMb: number };
  /** Networks SIP destinations may reach besides public addresses (PBXs, gateways on private ranges). */
  sipAllowedNetworks: string[];
  /** Slow-client defences of the HTTP listener (docs/security.md, "Slow clients"); times in milliseconds. */
  http: { headersTimeoutMs: number; requestTimeoutMs: number; keepAliveTimeoutMs: number; idleTimeoutMs: number; maxConnectionsPerIp: number };
  /** Failed API-key attempts allowed per source address per window before they answer 429 (docs/security.md, "Authentication"). */
  authThrottle: { failLimit: number; failWindowSeconds: number };
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

// Found by walking up, because this file runs both from src/ (tests, tsx) and from dist/src/ (npm start).
function findProjectRoot(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  while (!existsSync(path.join(dir, 'config', 'default.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) throw new ConfigError('config/default.json not found above ' + fileURLToPath(import.meta.url));
    dir = parent;
  }
  return dir;
}
const projectRoot = findProjectRoot();

type Env = Record<string, string | undefined>;

function readDefaults(): Config {
  const raw = JSON.parse(readFileSync(path.join(projectRoot, 'config', 'default.json'), 'utf8')) as Config;
  return raw;
}

function int(env: Env, name: string, fallback: number): number {
  const v = env[name];
  if (v === undefined || v === '') return fallback;
  if (!/^\d+$/.test(v)) throw new ConfigError(`${name} must be a whole number, got "${v}"`);
  return Number(v);
}

/**
 * PORT: one port, or a range ("8080-8089") of which the node takes the first free one, so several nodes on one
 * host's network (docker compose --scale app=2) each get their own.
 */
function portRange(env: Env, name: string, fallback: number): { port: number; portLast: number } {
  const range = /^(\d+)-(\d+)$/.exec(env[name] ?? '');
  const [first, last] = range ? [Number(range[1]), Number(range[2])] : [int(env, name, fallback), null];
  const valid = (p: number) => p <= 65535;
  if (!valid(first) || (last !== null && (!valid(last) || last < first || last - first > 999))) {
    throw new ConfigError(`${name} must be a port (0 to 65535) or a range of up to 1000 ports such as 8080-8089, got "${env[name]}"`);
  }
  return { port: first, portLast: last ?? first };
}

/** A limit where 0 would mean "none" to node: refused, so a typo cannot switch a defence off. */
function positive(env: Env, name: string, fallback: number): number {
  const n = int(env, name, fallback);
  if (n < 1) throw new ConfigError(`${name} must be at least 1, got "${env[name]}"`);
  return n;
}

function str(env: Env, name: string, fallback: string): string;
function str(env: Env, name: string, fallback: string | null): string | null;
function str(env: Env, name: string, fallback: string | null): string | null {
  const v = env[name];
  return v === undefined || v === '' ? fallback : v;
}

/** Comma-separated IPs or CIDR blocks; one bad entry stops the process rather than trusting the wrong peer. */
function cidrList(env: Env, name: string, fallback: string[]): string[] {
  const v = env[name];
  if (v === undefined) return fallback;
  const list = v.split(',').map((x) => x.trim()).filter((x) => x !== '');
  const bad = list.find((x) => parseCidr(x) === null);
  if (bad !== undefined) throw new ConfigError(`${name}: "${bad}" is not an IP address or CIDR block`);
  return list;
}

/**
 * FREESWITCH_SERVERS: `host:port:password` entries, comma-separated (IPv6 hosts in brackets; the password is the
 * rest of the entry, colons included). Unset: the single server of FREESWITCH_HOST/PORT/PASSWORD.
 */
function mediaServerList(env: Env, single: Config['engine']['freeswitch']): Config['engine']['mediaServers'] {
  const v = env.FREESWITCH_SERVERS;
  if (v === undefined || v.trim() === '') return [single];
  const servers = v.split(',').map((entry, i) => {
    const m = /^(\[[0-9a-fA-F:.]+\]|[A-Za-z0-9.-]+):(\d{1,5}):(.+)$/.exec(entry.trim());
    const port = Number(m?.[2]);
    // The entry holds a password: the message names its position, never its text.
    if (!m || port < 1 || port > 65535) throw new ConfigError(`FREESWITCH_SERVERS: entry ${i + 1} is not host:port:password`);
    return { host: m[1]!.replace(/^\[|\]$/g, ''), port, password: m[3]! };
  });
  const names = servers.map((s) => `${s.host}:${s.port}`);
  const twice = names.find((n, i) => names.indexOf(n) !== i);
  if (twice) throw new ConfigError(`FREESWITCH_SERVERS names ${twice} twice`);
  return servers;
}

/** RINGBASE_DATABASE_URL: a PostgreSQL URL, or unset for SQLite. Messages never repeat it: it may hold a password. */
function databaseUrl(env: Env, fallback: string | null): string | null {
  const v = str(env, 'RINGBASE_DATABASE_URL', fallback);
  if (v === null || v.trim() === '') return null;
  // Checked by its scheme only: libpq's forms (a unix socket as ?host=/dir, no host at all) are not WHATWG URLs.
  const scheme = /^([a-z][a-z0-9+.-]*):\/\//i.exec(v)?.[1]?.toLowerCase();
  if (scheme !== 'postgres' && scheme !== 'postgresql') {
    throw new ConfigError(`RINGBASE_DATABASE_URL must be a postgres:// or postgresql:// URL${scheme ? `, got a ${scheme}: URL` : ''} (unset it to use SQLite)`);
  }
  return v;
}

/** RINGBASE_NODE_URL: an http(s) origin, no path, as peers connect to it. */
function nodeUrl(env: Env, fallback: string | null): string | null {
  const v = str(env, 'RINGBASE_NODE_URL', fallback);
  if (v === null || v.trim() === '') return null;
  let url: URL | null = null;
  try { url = new URL(v); } catch { /* said below */ }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== v.replace(/\/$/, '')) {
    throw new ConfigError(`RINGBASE_NODE_URL must be an http:// or https:// origin with no path, such as http://10.0.0.5:8080; got "${v}"`);
  }
  return url.origin;
}

function engineKind(env: Env, fallback: EngineKind | null): EngineKind {
  const v = env.RINGBASE_ENGINE;
  if (v === 'sandbox' || v === 'drachtio') return v;
  if (v !== undefined && v !== '') throw new ConfigError(`RINGBASE_ENGINE must be "sandbox" or "drachtio", got "${v}"`);
  if (fallback) return fallback;
  return env.DRACHTIO_HOST ? 'drachtio' : 'sandbox';
}

/** Environment variables override config/default.json; nothing else in the code reads process.env. */
export function loadConfig(env: Env = process.env, overrides: Partial<Config> = {}): Config {
  const d = readDefaults();
  const freeswitch = {
    host: str(env, 'FREESWITCH_HOST', d.engine.freeswitch.host),
    port: int(env, 'FREESWITCH_PORT', d.engine.freeswitch.port),
    password: str(env, 'FREESWITCH_PASSWORD', d.engine.freeswitch.password),
  };
  const c: Config = {
    host: str(env, 'HOST', d.host),
    ...portRange(env, 'PORT', d.port),
    dataDir: path.resolve(str(env, 'RINGBASE_DATA_DIR', d.dataDir)),
    database: {
      url: databaseUrl(env, d.database.url),
      poolSize: int(env, 'RINGBASE_DATABASE_POOL_SIZE', d.database.poolSize),
    },
    publicBaseUrl: str(env, 'RINGBASE_PUBLIC_URL', d.publicBaseUrl),
    nodeUrl: nodeUrl(env, d.nodeUrl),
    drainSeconds: positive(env, 'RINGBASE_DRAIN_SECONDS', d.drainSeconds),
    metricsToken: str(env, 'RINGBASE_METRICS_TOKEN', d.metricsToken),
    logLevel: str(env, 'LOG_LEVEL', d.logLevel),
    sip: {
      host: str(env, 'RINGBASE_SIP_HOST', d.sip.host),
      udpPort: int(env, 'RINGBASE_SIP_UDP_PORT', d.sip.udpPort),
      tcpPort: int(env, 'RINGBASE_SIP_TCP_PORT', d.sip.tcpPort),
      tlsPort: int(env, 'RINGBASE_SIP_TLS_PORT', d.sip.tlsPort),
      wssPort: int(env, 'RINGBASE_SIP_WSS_PORT', d.sip.wssPort),
      wssPath: str(env, 'RINGBASE_SIP_WSS_PATH', d.sip.wssPath),
    },
    turn: {
      host: str(env, 'RINGBASE_TURN_HOST', d.turn.host),
      stunPort: int(env, 'RINGBASE_STUN_PORT', d.turn.stunPort),
      turnPort: int(env, 'RINGBASE_TURN_PORT', d.turn.turnPort),
      turnsPort: int(env, 'RINGBASE_TURNS_PORT', d.turn.turnsPort),
      secret: str(env, 'RINGBASE_TURN_SECRET', d.turn.secret),
      ttlSeconds: int(env, 'RINGBASE_TURN_TTL', d.turn.ttlSeconds),
    },
    tls: {
      certFile: str(env, 'RINGBASE_TLS_CERT', d.tls.certFile),
      keyFile: str(env, 'RINGBASE_TLS_KEY', d.tls.keyFile),
      selfSigned: env.RINGBASE_TLS_SELF_SIGNED === '1' || d.tls.selfSigned,
    },
    trustedProxies: cidrList(env, 'RINGBASE_TRUSTED_PROXIES', d.trustedProxies),
    preview: {
      rateLimit: int(env, 'RINGBASE_PREVIEW_RATE_LIMIT', d.preview.rateLimit),
      rateWindowSeconds: int(env, 'RINGBASE_PREVIEW_RATE_WINDOW', d.preview.rateWindowSeconds),
    },
    accounts: { defaultTrunkCapacity: int(env, 'RINGBASE_DEFAULT_TRUNK_CAPACITY', d.accounts.defaultTrunkCapacity) },
    engine: {
      kind: engineKind(env, d.engine.kind),
      drachtio: {
        host: str(env, 'DRACHTIO_HOST', d.engine.drachtio.host),
        port: int(env, 'DRACHTIO_PORT', d.engine.drachtio.port),
        secret: str(env, 'DRACHTIO_SECRET', d.engine.drachtio.secret),
      },
      freeswitch,
      mediaServers: mediaServerList(env, freeswitch),
      media: {
        listenAddress: str(env, 'RINGBASE_MEDIA_LISTEN_ADDRESS', d.engine.media.listenAddress),
        listenPort: int(env, 'RINGBASE_MEDIA_LISTEN_PORT', d.engine.media.listenPort),
        advertisedAddress: str(env, 'RINGBASE_MEDIA_ADVERTISED_ADDRESS', d.engine.media.advertisedAddress),
      },
    },
    devAllowLocalTargets: env.RINGBASE_DEV_ALLOW_LOCAL_TARGETS === '1' || d.devAllowLocalTargets,
    mediaCache: {
      maxMb: int(env, 'RINGBASE_MEDIA_CACHE_MB', d.mediaCache.maxMb),
      maxFileMb: int(env, 'RINGBASE_MEDIA_MAX_FILE_MB', d.mediaCache.maxFileMb),
    },
    sipAllowedNetworks: cidrList(env, 'RINGBASE_SIP_ALLOWED_NETWORKS', d.sipAllowedNetworks),
    http: {
      headersTimeoutMs: positive(env, 'RINGBASE_HTTP_HEADERS_TIMEOUT_MS', d.http.headersTimeoutMs),
      requestTimeoutMs: positive(env, 'RINGBASE_HTTP_REQUEST_TIMEOUT_MS', d.http.requestTimeoutMs),
      keepAliveTimeoutMs: positive(env, 'RINGBASE_HTTP_KEEP_ALIVE_TIMEOUT_MS', d.http.keepAliveTimeoutMs),
      idleTimeoutMs: positive(env, 'RINGBASE_HTTP_IDLE_TIMEOUT_MS', d.http.idleTimeoutMs),
      maxConnectionsPerIp: positive(env, 'RINGBASE_HTTP_MAX_CONNECTIONS_PER_IP', d.http.maxConnectionsPerIp),
    },
    authThrottle: {
      failLimit: positive(env, 'RINGBASE_AUTH_FAIL_LIMIT', d.authThrottle.failLimit),
      failWindowSeconds: positive(env, 'RINGBASE_AUTH_FAIL_WINDOW_S', d.authThrottle.failWindowSeconds),
    },
    ...overrides,
  };
  // A guessable token would open every account's queue figures; the throttle alone does not make a short one safe.
  if (c.metricsToken !== null && !/^[\x21-\x7e]{32,256}$/.test(c.metricsToken)) {
    throw new ConfigError('RINGBASE_METRICS_TOKEN must be 32 to 256 printable characters without spaces (e.g. openssl rand -hex 32)');
  }
  if ((c.tls.certFile === null) !== (c.tls.keyFile === null)) {
    throw new ConfigError('RINGBASE_TLS_CERT and RINGBASE_TLS_KEY must be set together');
  }
  // Node refuses to start a server whose headers may take longer than the whole request.
  if (c.http.headersTimeoutMs > c.http.requestTimeoutMs) {
    throw new ConfigError('RINGBASE_HTTP_HEADERS_TIMEOUT_MS must not exceed RINGBASE_HTTP_REQUEST_TIMEOUT_MS');
  }
  return c;
}

const MASTER_KEY_FILE = 'master.key';

function decodeMasterKey(text: string, source: string): Buffer {
  const trimmed = text.trim();
  const key = /^[0-9a-fA-F]{64}$/.test(trimmed) ? Buffer.from(trimmed, 'hex') : Buffer.from(trimmed, 'base64');
  if (key.length !== 32 || (!/^[0-9a-fA-F]{64}$/.test(trimmed) && key.toString('base64') !== trimmed)) {
    throw new ConfigError(`${source} must hold a 32-byte key as 64 hex characters or base64`);
  }
  return key;
}

/**
 * The master key encrypts secrets at rest. It comes from RINGBASE_MASTER_KEY, or is generated once into the
 * data dir (0600) so a fresh install works without setup; a malformed key stops the process rather than
 * silently making every stored secret unreadable.
 */
export function loadMasterKey(dataDir: string, env: Env = process.env): Buffer {
  const fromEnv = env.RINGBASE_MASTER_KEY;
  if (fromEnv !== undefined && fromEnv !== '') return decodeMasterKey(fromEnv, 'RINGBASE_MASTER_KEY');
  const file = path.join(dataDir, MASTER_KEY_FILE);
  if (existsSync(file)) return decodeMasterKey(readFileSync(file, 'utf8'), file);
  mkdirSync(dataDir, { recursive: true });
  return decodeMasterKey(readOrCreatePrivateFile(file, randomBytes(32).toString('hex') + '\n'), file);
}
