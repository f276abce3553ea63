// Outbound registration: the platform REGISTERs to a SIP provider so the provider sends calls for our number to
// us. drachtio-srf answers the provider's 401/407 digest challenge itself (lib/digest-client.js: the retry keeps
// the Call-ID and From tag and bumps CSeq), and drachtio-server replaces `localhost` in the Contact with its own
// SIP address on the transport the request leaves on, so this module never needs to know that address.
// One registration keeps its Call-ID, From tag and rising CSeq across refreshes (RFC 3261 §10.2.4); after a
// failure it starts a fresh one, so nothing the abandoned transaction left behind (drachtio-srf keys its
// challenge bookkeeping by Call-ID, the registrar may still run it) can be mistaken for the new attempt.
import { randomBytes, randomUUID } from 'node:crypto';
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import { hostAndPort } from '../../store/carriers.js';
import { gatewayUri, transportParam } from './carriers.js';

export interface RegistrationTarget {
  /** Registrar address: host, port (5060 default; 5061 for tls, RFC 3263), transport udp|tcp|tls */
  host: string; port: number | null; transport: 'udp' | 'tcp' | 'tls';
  username: string; password: string;
  /** When set, only a challenge from this realm is answered (credentials are never handed to another realm). */
  realm: string | null;
  /** The user part of our Contact, so an INVITE the provider sends on this registration can be recognised (request-URI user). */
  contactUser: string;
  /** Requested expiry, seconds (default 3600). */
  expires: number;
}

export type RegistrationState = {
  state: 'registering' | 'registered' | 'failed';
  expiresAt?: number; lastStatus?: number; lastError?: string; retryInMs?: number;
};

export interface RegistrationTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export interface RegistrationOptions {
  log: Logger;
  onState?(s: RegistrationState): void;
  backoff?: { firstMs: number; maxMs: number };
  /** Bound on one REGISTER, challenge round included (default 5 s): SIP's own timer F would wait 32 s. */
  transactionTimeoutMs?: number;
  timers?: RegistrationTimers;
  /** [0, 1), for the backoff's jitter. */
  random?: () => number;
}

export interface Registration { state(): RegistrationState; stop(): Promise<void> }

const realTimers: RegistrationTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  now: () => Date.now(),
};

/** A refresh never comes sooner than this after the last success, whatever tiny expiry a registrar grants. */
const MIN_REFRESH_MS = 500;

type Auth = (req: unknown, res: Srf.SrfResponse, cb: (err: Error | null, username?: string, password?: string) => void) => void;
/**
 * srf.request as drachtio-srf implements it (its typings are wrong: no method argument, auth missing), in its
 * callback form: the callback runs synchronously when drachtio-server confirms the request went out, so the
 * 'response' listener is on before a response read in the same chunk is dispatched (the promise form attaches it
 * a microtask later, and a registrar answering at once, without a challenge, could be missed).
 */
type SendRequest = (uri: string, opts: { method: string; headers: Record<string, string>; auth?: Auth },
  cb: (err: Error | null, req: Srf.SrfRequest) => void) => void;

type Outcome = { ok: true; grantedS: number; status: number } | { ok: false; status?: number; error: string };

export function startRegistration(srf: Srf, target: RegistrationTarget, opts: RegistrationOptions): Registration {
  const timers = opts.timers ?? realTimers;
  const random = opts.random ?? Math.random;
  const backoff = opts.backoff ?? { firstMs: 1_000, maxMs: 60_000 };
  const txMs = opts.transactionTimeoutMs ?? 5_000;
  const send = (srf.request as unknown as SendRequest).bind(srf);
  const tp = transportParam(target.transport);
  const uri = gatewayUri(target);
  const aor = `sip:${target.username}@${hostAndPort(target.host, null)}`;
  const requested = target.expires > 0 ? target.expires : 3600;
  // Logged with every line: never the password.
  const log = opts.log.child({ registrar: uri, aor, contactUser: target.contactUser });

  let current: RegistrationState = { state: 'registering' };
  let dialog = { callId: randomUUID(), tag: randomBytes(6).toString('hex'), cseq: 1 };
  let failures = 0;
  /** Until when the registrar holds our binding: a failed refresh does not remove it, so stop() still removes it. */
  let boundUntil = 0;
  let timer: unknown = null;
  let inFlight: Promise<unknown> | null = null;
  let stopped: Promise<void> | null = null;

  const publish = (s: RegistrationState) => {
    current = s;
    try { opts.onState?.(s); } catch (err) { log.error({ err }, 'registration state listener threw'); }
  };

  /**
   * Answers a challenge with the credentials, unless it comes from a realm other than the configured one, or the
   * transaction was given up (`live()` false): sofia keeps retransmitting an abandoned REGISTER until timer F, and
   * a registrar that comes back would otherwise be answered, and bound, by a transaction nobody waits for.
   */
  const authFor = (live: () => boolean): Auth => (_req, res, cb) => {
    if (!live()) return cb(new Error('transaction given up'));
    const header = res.get(res.status === 407 ? 'Proxy-Authenticate' : 'WWW-Authenticate') ?? '';
    const realm = /realm="([^"]*)"/i.exec(header)?.[1];
    if (target.realm !== null && realm !== target.realm) return cb(new Error(`challenge from realm ${realm ?? '(none)'}`));
    cb(null, target.username, target.password);
  };

  /** One REGISTER transaction (its challenge round included), bounded by txMs. */
  const register = (expires: number): Promise<Outcome> => {
    // This registration's ids: a late response must not touch a fresh one started since.
    const d = dialog;
    const headers = {
      'Call-ID': d.callId, CSeq: `${d.cseq} REGISTER`, From: `<${aor}>;tag=${d.tag}`, To: `<${aor}>`,
      Contact: `<sip:${target.contactUser}@localhost${tp}>;expires=${expires}`, Expires: String(expires),
    };
    return new Promise<Outcome>((resolve) => {
      let settled = false;
      const finish = (o: Outcome) => { if (!settled) { settled = true; timers.clearTimeout(bound); resolve(o); } };
      const bound = timers.setTimeout(() => finish({ ok: false, error: `no final response within ${txMs} ms` }), txMs);
      const onResponse = (res?: Srf.SrfResponse) => {
        if (!res || res.status < 200) return;
        // The next CSeq follows the one the registrar answered: a challenge round used one more.
        const seq = Number.parseInt(res.get('CSeq') ?? '', 10);
        if (Number.isFinite(seq)) d.cseq = Math.max(d.cseq, seq + 1);
        if (res.status >= 300) return finish({ ok: false, status: res.status, error: `${res.status} ${res.reason ?? ''}`.trim() });
        finish({ ok: true, status: res.status, grantedS: granted(res, expires) });
      };
      try {
        send(uri, { method: 'REGISTER', headers, auth: authFor(() => !settled) }, (err, req) => {
          if (err) return finish({ ok: false, error: `not sent: ${err.message}` });
          req.on('response', onResponse);
        });
      } catch (err) { finish({ ok: false, error: `not sent: ${(err as Error).message}` }); }
    });
  };

  /** The expiry the registrar granted our contact: its ;expires=, else the Expires header, else what we asked. */
  const granted = (res: Srf.SrfResponse, asked: number): number => {
    const contacts = res.has('Contact') ? res.getParsedHeader('Contact') as unknown : [];
    const ours = (Array.isArray(contacts) ? contacts as Array<{ uri?: string; params?: Record<string, string> }> : [])
      .find((c) => new RegExp(`^sips?:${target.contactUser.replace(/\W/g, '\\$&')}@`).test(c.uri ?? ''));
    const fromContact = Number.parseInt(ours?.params?.expires ?? '', 10);
    if (Number.isFinite(fromContact)) return fromContact;
    const fromHeader = Number.parseInt(res.has('Expires') ? res.get('Expires') : '', 10);
    return Number.isFinite(fromHeader) ? fromHeader : asked;
  };

  const schedule = (ms: number) => { timer = timers.setTimeout(() => { timer = null; void attempt(); }, ms); };

  const attempt = async (): Promise<void> => {
    if (stopped) return;
    const sentAt = timers.now();
    const run = register(requested);
    inFlight = run;
    const outcome = await run;
    inFlight = null;
    // Counted from when the REGISTER left: the binding cannot outlive that.
    if (outcome.ok && outcome.grantedS > 0) boundUntil = sentAt + outcome.grantedS * 1000;
    // stop() waits for this attempt and unregisters if it succeeded.
    if (stopped) return;
    if (outcome.ok && outcome.grantedS > 0) {
      failures = 0;
      const grantedMs = outcome.grantedS * 1000;
      publish({ state: 'registered', expiresAt: boundUntil, lastStatus: outcome.status });
      log.info({ grantedS: outcome.grantedS }, 'registered with the carrier');
      // Refreshed at half-time: at least 1 s before expiry for any grant of 2 s or more.
      return schedule(Math.max(MIN_REFRESH_MS, grantedMs / 2));
    }
    failures++;
    // Exponential from firstMs, capped at maxMs, shortened by up to 10% so many registrations spread out.
    const base = Math.min(backoff.maxMs, backoff.firstMs * 2 ** (failures - 1));
    const retryInMs = Math.round(base * (1 - 0.1 * random()));
    const error = outcome.ok ? 'registrar granted no time' : outcome.error;
    dialog = { callId: randomUUID(), tag: randomBytes(6).toString('hex'), cseq: 1 };
    publish({ state: 'failed', lastError: error, retryInMs, ...(outcome.status ? { lastStatus: outcome.status } : {}) });
    log.warn({ status: outcome.status, error, retryInMs, failures }, 'carrier registration failed');
    schedule(retryInMs);
  };

  const stop = async (): Promise<void> => {
    if (timer !== null) { timers.clearTimeout(timer); timer = null; }
    await inFlight;
    if (boundUntil > timers.now()) {
      const outcome = await register(0);
      if (outcome.ok) { boundUntil = 0; log.info('unregistered from the carrier'); }
      else log.warn({ status: outcome.status, error: outcome.error }, 'carrier un-REGISTER failed; the binding lapses at its expiry');
    }
    // RegistrationState has no 'stopped': a stopped registration is one that no longer holds a binding.
    current = { state: 'failed', lastError: 'stopped' };
  };

  void attempt();
  return {
    state: () => current,
    stop: () => (stopped ??= stop()),
  };
}
