// Carrier gateway health: a SIP OPTIONS to each gateway every intervalMs, so outbound calls skip a gateway that
// stopped answering instead of waiting out SIP's 32 s timer F on every call. A gateway is down after one
// unanswered ping (timeout, 408, 503, or the request could not be sent) and up at its first answered one: any
// other final response, even 404 or 405, proves the host is there. Each gateway runs on its own timer, so a slow
// one never delays the others, and it never has more than one ping of ours in flight.
// Our bound on a ping is shorter than the interval: a gateway that dies is seen down within two intervals. An
// abandoned UDP ping lives on inside drachtio-server (sofia retransmits it until timer F, 32 s); there is no way
// to end a non-INVITE client transaction early from the app.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import { gatewayUri } from './carriers.js';

export interface PingedGateway { key: string; host: string; port: number | null; transport: 'udp' | 'tcp' | 'tls' }

export interface GatewayHealthTimers {
  setTimeout(fn: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

export interface GatewayHealthOptions {
  intervalMs: number;
  log: Logger;
  onChange?(key: string, up: boolean): void;
  /** Bound on one ping (default: 5 s, never more than 80% of intervalMs). */
  timeoutMs?: number;
  timers?: GatewayHealthTimers;
}

export interface GatewayHealth {
  /** Replace the set of gateways pinged (new ones start 'up' until a ping fails), keyed by `key`. */
  set(gateways: PingedGateway[]): void;
  /** Unknown keys are up. */
  isUp(key: string): boolean;
  states(): Array<{ key: string; up: boolean; lastPingAt: number | null; lastStatus: number | null; rttMs: number | null }>;
  stop(): void;
}

const realTimers: GatewayHealthTimers = {
  setTimeout: (fn, ms) => setTimeout(fn, ms),
  clearTimeout: (h) => clearTimeout(h as NodeJS.Timeout),
  now: () => Date.now(),
};

/** Final responses that mean nobody answered: a timeout (ours, or drachtio's 408) or a transport failure. */
const UNANSWERED = new Set([408, 503]);

/**
 * srf.request as drachtio-srf implements it (its typings want a method argument it does not take), in its callback
 * form: the callback runs synchronously when drachtio-server confirms the request went out, so the 'response'
 * listener is on before a response that came in the same read is dispatched. With the promise form, a gateway
 * answering within a millisecond or two had its 200 emitted before the listener was attached (seen: the first
 * ping of a local gateway always lost).
 */
type SendRequest = (uri: string, opts: { method: string }, cb: (err: Error | null, req: Srf.SrfRequest) => void) => void;

interface Pinged {
  gw: PingedGateway;
  uri: string;
  up: boolean;
  lastPingAt: number | null;
  lastStatus: number | null;
  rttMs: number | null;
  inFlight: boolean;
  timer: unknown;
  removed: boolean;
}


export function startGatewayHealth(srf: Srf, opts: GatewayHealthOptions): GatewayHealth {
  const timers = opts.timers ?? realTimers;
  const timeoutMs = Math.min(opts.timeoutMs ?? 5_000, Math.floor(opts.intervalMs * 0.8));
  const send = (srf.request as unknown as SendRequest).bind(srf);
  const pinged = new Map<string, Pinged>();
  let stopped = false;

  /** One OPTIONS: its final status, or null when unanswered within timeoutMs or not sent at all. */
  const ping = (uri: string): Promise<number | null> => new Promise((resolve) => {
    let settled = false;
    const finish = (status: number | null) => { if (!settled) { settled = true; timers.clearTimeout(bound); resolve(status); } };
    const bound = timers.setTimeout(() => finish(null), timeoutMs);
    try {
      send(uri, { method: 'OPTIONS' }, (err, req) => {
        if (err) return finish(null);
        req.on('response', (res) => { if (res && res.status >= 200) finish(res.status); });
      });
    } catch { finish(null); }
  });

  const tick = async (p: Pinged): Promise<void> => {
    if (p.removed || stopped) return;
    // The next ping is due an interval after this one started, whatever this one takes (it takes less).
    p.timer = timers.setTimeout(() => void tick(p), opts.intervalMs);
    if (p.inFlight) return;
    p.inFlight = true;
    const started = timers.now();
    const status = await ping(p.uri);
    p.inFlight = false;
    if (p.removed || stopped) return;
    const answered = status !== null && !UNANSWERED.has(status);
    p.lastPingAt = started;
    p.lastStatus = status;
    p.rttMs = answered ? timers.now() - started : null;
    if (answered === p.up) return;
    p.up = answered;
    opts.log[answered ? 'info' : 'warn']({ gateway: p.gw.key, uri: p.uri, status }, answered ? 'carrier gateway answers again' : 'carrier gateway not answering OPTIONS');
    try { opts.onChange?.(p.gw.key, answered); } catch (err) { opts.log.error({ err }, 'gateway health listener threw'); }
  };

  const drop = (p: Pinged) => {
    p.removed = true;
    if (p.timer !== null) timers.clearTimeout(p.timer);
  };

  return {
    set(gateways) {
      if (stopped) return;
      const next = new Map(gateways.map((gw) => [gw.key, gw]));
      for (const [key, p] of pinged) {
        const gw = next.get(key);
        // A gateway whose address changed is a new one: its old state says nothing about the new address.
        if (!gw || gatewayUri(gw) !== p.uri) { drop(p); pinged.delete(key); }
      }
      for (const gw of next.values()) {
        if (pinged.has(gw.key)) { pinged.get(gw.key)!.gw = gw; continue; }
        const p: Pinged = { gw, uri: gatewayUri(gw), up: true, lastPingAt: null, lastStatus: null, rttMs: null, inFlight: false, timer: null, removed: false };
        pinged.set(gw.key, p);
        void tick(p);
      }
    },
    isUp: (key) => pinged.get(key)?.up ?? true,
    states: () => [...pinged.values()].map((p) => ({ key: p.gw.key, up: p.up, lastPingAt: p.lastPingAt, lastStatus: p.lastStatus, rttMs: p.rttMs })),
    stop() {
      stopped = true;
      for (const p of pinged.values()) drop(p);
      pinged.clear();
    },
  };
}
