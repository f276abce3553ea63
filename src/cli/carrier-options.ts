// The carrier settings the operator writes on the command line, read and checked (docs/carriers.md). Each problem
// names its option; nothing is stored until every option is right.
import { hostnameProblem } from '../net/hostname.js';
import { parseCidr } from '../net/cidr.js';
import { numberRulesProblem, type NumberRules } from '../net/number-rules.js';
import type {
  CarrierGateway, CarrierRegistration, CarrierRoute, CarrierSettings, CarrierSource, CarrierTransport, DtmfMode, SrtpMode,
} from '../store/carriers.js';
import { CliError } from './context.js';

/** The options of `carrier add` and `carrier update`, as commander gives them (repeatable ones as lists). */
export interface CarrierFlags {
  address?: string;
  source?: string[];
  gateway?: string[];
  prefix?: string[];
  username?: string;
  password?: string;
  realm?: string;
  /** false with --no-auth. */
  auth?: boolean;
  register?: boolean;
  registrar?: string;
  registerExpires?: string;
  numberFormat?: string;
  countryCode?: string;
  nationalPrefix?: string;
  internationalPrefix?: string;
  techPrefix?: string;
  dtmf?: string;
  codecs?: string;
  srtp?: string;
  optionsPing?: string;
}

const TRANSPORTS: readonly CarrierTransport[] = ['udp', 'tcp', 'tls'];
const DTMF_MODES: readonly DtmfMode[] = ['rfc2833', 'info', 'inband'];
const SRTP_MODES: readonly SrtpMode[] = ['off', 'offered', 'required'];
/** What the media servers can offer a carrier (FreeSWITCH's names). */
const CODECS = ['PCMU', 'PCMA', 'G722', 'OPUS'];
const MAX_LIST = 50;

function oneOf<T extends string>(value: string, allowed: readonly T[], option: string): T {
  if (!(allowed as readonly string[]).includes(value)) throw new CliError(`${option} must be one of ${allowed.join(', ')}, got "${value}"`);
  return value as T;
}

function wholeNumber(value: string, option: string, max: number): number {
  if (!/^\d{1,9}$/.test(value) || Number(value) > max) throw new CliError(`${option} must be a whole number from 0 to ${max}, got "${value}"`);
  return Number(value);
}

function port(value: string | undefined, option: string): number | null {
  if (value === undefined) return null;
  const n = Number(value);
  if (!/^\d{1,5}$/.test(value) || n < 1 || n > 65535) throw new CliError(`${option} port must be 1-65535, got "${value}"`);
  return n;
}

/** HOST[:PORT] or [v6]:PORT, the host judged by the one host rule (carriers are the operator's own peers: private addresses are fine). */
export function parseAddress(value: string, option = '--address'): { host: string; port: number | null } {
  const m = /^(\[[^\]]+\])(?::(\d+))?$/.exec(value) ?? /^([^:]+)(?::(\d+))?$/.exec(value);
  const written = m?.[1];
  if (!written) throw new CliError(`${option} must be HOST[:PORT], got "${value}"`);
  const problem = hostnameProblem(written, 'any');
  if (problem) throw new CliError(`${option} host "${written}" ${problem}`);
  return { host: written.replace(/^\[(.*)\]$/, '$1'), port: port(m[2], option) };
}

/** `VALUE;key=value;…`: the value and its parameters, each key allowed once and only from `keys`. */
function withParams(text: string, keys: readonly string[], option: string): { value: string; params: Map<string, string> } {
  const [value = '', ...rest] = text.split(';');
  const params = new Map<string, string>();
  for (const p of rest) {
    const [key = '', v] = p.split('=');
    if (!keys.includes(key) || v === undefined || params.has(key)) throw new CliError(`${option} "${text}": parameters are ${keys.map((k) => `;${k}=…`).join(' ')}, each once`);
    params.set(key, v);
  }
  return { value, params };
}

/** ADDRESS[/BITS][:PORT], or [IPv6[/BITS]]:PORT: an address or range calls come from, on one port or any. */
export function parseSource(text: string): CarrierSource {
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(text) ?? /^([^:]+)(?::(\d+))?$/.exec(text) ?? /^([0-9a-fA-F:]+(?:\/\d+)?)$/.exec(text);
  const network = m?.[1];
  if (!network || !parseCidr(network)) throw new CliError(`--source must be an IP address or CIDR range, with an optional :PORT, got "${text}"`);
  return { network, port: port(m[2], '--source') };
}

/** HOST[:PORT][;transport=udp|tcp|tls][;priority=N][;weight=N] */
export function parseGateway(text: string): CarrierGateway {
  const { value, params } = withParams(text, ['transport', 'priority', 'weight'], '--gateway');
  const at = parseAddress(value, '--gateway');
  return {
    ...at, transport: oneOf(params.get('transport') ?? 'udp', TRANSPORTS, '--gateway transport'),
    priority: wholeNumber(params.get('priority') ?? '0', '--gateway priority', 65535), weight: wholeNumber(params.get('weight') ?? '1', '--gateway weight', 65535),
  };
}

/** PREFIX[;priority=N][;weight=N]: numbers starting with PREFIX ('*' for every number). */
export function parseRoute(text: string): CarrierRoute {
  const { value, params } = withParams(text, ['priority', 'weight'], '--prefix');
  if (value !== '*' && !/^\+?\d{1,15}$/.test(value)) throw new CliError(`--prefix must be digits, optionally starting with +, or * for every number, got "${value}"`);
  return {
    prefix: value === '*' ? '' : value,
    priority: wholeNumber(params.get('priority') ?? '0', '--prefix priority', 65535), weight: wholeNumber(params.get('weight') ?? '1', '--prefix weight', 65535),
  };
}

function listOf<T>(values: string[], parse: (v: string) => T, option: string): T[] {
  if (values.length > MAX_LIST) throw new CliError(`${option} can be given at most ${MAX_LIST} times`);
  return values.map(parse);
}

function numberRules(f: CarrierFlags, was: NumberRules): NumberRules {
  const rules: NumberRules = {
    format: f.numberFormat === undefined ? was.format : oneOf(f.numberFormat, ['e164', 'international', 'national'] as const, '--number-format'),
    countryCode: f.countryCode ?? was.countryCode, nationalPrefix: f.nationalPrefix ?? was.nationalPrefix,
    internationalPrefix: f.internationalPrefix ?? was.internationalPrefix, techPrefix: f.techPrefix ?? was.techPrefix,
  };
  // An empty value clears a prefix.
  for (const key of ['countryCode', 'nationalPrefix', 'internationalPrefix', 'techPrefix'] as const) if (rules[key] === '') rules[key] = null;
  const problem = numberRulesProblem(rules);
  if (problem) throw new CliError(`number rules: ${problem}`);
  return rules;
}

function registration(f: CarrierFlags, was: CarrierRegistration | null, gateways: CarrierGateway[]): CarrierRegistration | null {
  if (f.register === false) return null;
  if (!f.register && !was) return null;
  const expires = f.registerExpires === undefined ? was?.expires ?? 3600 : wholeNumber(f.registerExpires, '--register-expires', 86_400);
  if (expires < 60) throw new CliError('--register-expires must be at least 60 seconds');
  if (f.registrar !== undefined) {
    const r = parseGateway(f.registrar);
    return { host: r.host, port: r.port, transport: r.transport, expires };
  }
  const first = was ?? gateways[0];
  if (!first) throw new CliError('--register needs --registrar or a --gateway to register to');
  return { host: first.host, port: first.port, transport: first.transport, expires };
}

/**
 * The settings `flags` ask for over `was` (a carrier's current settings, or the defaults of a new one): a list option
 * replaces that whole list, any other option just its value. `seal` seals a new password.
 */
export function carrierSettings(f: CarrierFlags, was: CarrierSettings, seal: (password: string) => string): CarrierSettings {
  const address = f.address === undefined ? null : parseAddress(f.address);
  // An address given by name is only a gateway: a source is what a packet's address says.
  const sources = f.source?.length ? listOf(f.source, parseSource, '--source')
    : address ? (parseCidr(address.host) ? [{ network: address.host, port: address.port }] : []) : was.sources;
  const gateways = f.gateway?.length ? listOf(f.gateway, parseGateway, '--gateway')
    : address ? [{ host: address.host, port: address.port, transport: 'udp' as const, priority: 0, weight: 1 }] : was.gateways;
  const routes = f.prefix?.length ? listOf(f.prefix, parseRoute, '--prefix') : was.routes;

  let auth = f.auth === false ? null : was.auth;
  if (f.username !== undefined || f.password !== undefined || f.realm !== undefined) {
    const username = f.username ?? auth?.username;
    if (!username || !/^[\x21-\x7e]{1,128}$/.test(username)) throw new CliError('--username must be 1-128 visible ASCII characters');
    if (f.password === undefined && !auth) throw new CliError('--password is needed with --username');
    if (f.password !== undefined && (f.password.length < 1 || f.password.length > 256)) throw new CliError('--password must be 1-256 characters');
    const realm = f.realm === undefined ? auth?.realm ?? null : f.realm || null;
    if (realm !== null && hostnameProblem(realm, 'any')) throw new CliError(`--realm ${hostnameProblem(realm, 'any')}`);
    auth = { username, passwordSealed: f.password === undefined ? auth!.passwordSealed : seal(f.password), realm };
  }

  const srtp = f.srtp === undefined ? was.srtp : oneOf(f.srtp, SRTP_MODES, '--srtp');
  if (srtp !== 'off' && gateways.some((g) => g.transport !== 'tls')) throw new CliError('--srtp offered or required needs every gateway on transport=tls (SDES keys travel in the signalling)');
  const codecs = f.codecs === undefined ? was.codecs : f.codecs === '' ? [] : f.codecs.split(',').map((c) => oneOf(c.trim().toUpperCase(), CODECS, '--codecs'));
  const settings: CarrierSettings = {
    sources, gateways, routes, auth, registration: registration(f, was.registration, gateways), numbers: numberRules(f, was.numbers),
    dtmf: f.dtmf === undefined ? was.dtmf : oneOf(f.dtmf, DTMF_MODES, '--dtmf'), codecs: [...new Set(codecs)], srtp,
    optionsPingS: f.optionsPing === undefined ? was.optionsPingS : wholeNumber(f.optionsPing, '--options-ping', 3600) || null,
  };
  if (settings.registration && !settings.auth) throw new CliError('--register needs --username and --password');
  if (settings.sources.length === 0 && settings.gateways.length === 0 && !settings.registration) {
    throw new CliError('a carrier needs --address, or a --source, a --gateway or --register');
  }
  return settings;
}
