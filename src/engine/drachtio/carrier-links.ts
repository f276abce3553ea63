// The engine's standing links to its carriers: SIP OPTIONS to the gateways of carriers that ask for them (a gateway
// that stops answering is skipped until it answers again), and a registration for each carrier that registers. Both
// follow the carrier list, read at start and every few seconds (from the store's cache), so a carrier changed with the
// CLI is pinged and registered, or no longer, within that time.
import { createHmac } from 'node:crypto';
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { CarrierLinkStatus } from '../port.js';
import { gatewayKey } from '../../store/carriers.js';
import type { CarrierDirectory, CarrierEntry } from './carriers.js';
import { startGatewayHealth, type GatewayHealth } from './gateway-health.js';
import { startRegistration, type Registration } from './carrier-registration.js';

/** How often the carrier list is read again for changes. */
const REFRESH_MS = 5_000;


interface Registered { fingerprint: string; carrier: CarrierEntry; registration: Registration }

export interface CarrierLinksOptions {
  log: Logger;
  /**
   * Keys the user part of our Contact in each registration: an INVITE sent to it arrived on that registration, so
   * it must not be guessable (it lets a call in as the carrier's). The same on every control plane of a cluster.
   */
  contactKey: Buffer;
  /** Registration retries (default 1 s doubling to 60 s). */
  registrationBackoff?: { firstMs: number; maxMs: number };
}

export class CarrierLinks {
  /** One health checker per ping interval: carriers may ask for different ones. */
  readonly #health = new Map<number, GatewayHealth>();
  readonly #registrations = new Map<number, Registered>();
  #timer: NodeJS.Timeout | undefined;
  #srf: Srf | null = null;

  constructor(private readonly carriers: CarrierDirectory, private readonly opts: CarrierLinksOptions) {}

  /** The user part of our Contact in a carrier's registration. */
  contactUserOf(carrier: Pick<CarrierEntry, 'id'>): string {
    return `rb${createHmac('sha256', this.opts.contactKey).update(`carrier contact ${carrier.id}`).digest('hex').slice(0, 24)}`;
  }

  /** Starts pinging and registering (the SIP connection is up); resolves once the carrier list was first read. */
  async start(srf: Srf): Promise<void> {
    this.#srf = srf;
    await this.refresh();
    this.#timer = setInterval(() => void this.refresh(), REFRESH_MS);
    this.#timer.unref();
  }

  /** Follows the carrier list now (also run every REFRESH_MS); a list that cannot be read leaves everything as it was. */
  async refresh(): Promise<void> {
    const srf = this.#srf;
    if (!srf) return;
    let all: readonly CarrierEntry[];
    try {
      all = await this.carriers.list();
    } catch (err) {
      this.opts.log.warn({ err }, 'carrier list not read: carrier links left as they were');
      return;
    }
    this.#ping(srf, all);
    await this.#register(srf, all);
  }

  /** Whether a gateway (by its gatewayKey) answers its pings; one not pinged always counts as answering. */
  isUp(key: string): boolean {
    for (const health of this.#health.values()) if (!health.isUp(key)) return false;
    return true;
  }

  /** The registering carrier an INVITE to `user` (its request-URI user) arrived on the registration of. */
  registeredCarrier(user: string | undefined): CarrierEntry | undefined {
    for (const r of this.#registrations.values()) if (this.contactUserOf(r.carrier) === user) return r.carrier;
    return undefined;
  }

  status(): CarrierLinkStatus {
    return {
      gateways: [...this.#health.values()].flatMap((h) => h.states()).map((s) => ({
        gateway: s.key, carrier: s.key.slice(0, s.key.lastIndexOf('/')), up: s.up, lastStatus: s.lastStatus, rttMs: s.rttMs,
        checkedAt: s.lastPingAt === null ? null : new Date(s.lastPingAt).toISOString(),
      })),
      registrations: [...this.#registrations.values()].map(({ carrier, registration }) => {
        const s = registration.state();
        return {
          carrier: carrier.name, state: s.state, expiresAt: s.expiresAt === undefined ? null : new Date(s.expiresAt).toISOString(),
          lastStatus: s.lastStatus ?? null, lastError: s.lastError ?? null,
        };
      }),
    };
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#srf = null;
    for (const health of this.#health.values()) health.stop();
    this.#health.clear();
    await Promise.allSettled([...this.#registrations.values()].map((r) => r.registration.stop()));
    this.#registrations.clear();
  }

  #ping(srf: Srf, all: readonly CarrierEntry[]): void {
    const byInterval = new Map<number, Array<{ key: string; host: string; port: number | null; transport: 'udp' | 'tcp' | 'tls' }>>();
    for (const c of all) {
      if (c.optionsPingS === null) continue;
      const list = byInterval.get(c.optionsPingS) ?? [];
      list.push(...c.gateways.map((g) => ({ key: gatewayKey(c.name, g), host: g.host, port: g.port, transport: g.transport })));
      byInterval.set(c.optionsPingS, list);
    }
    for (const [seconds, health] of this.#health) {
      if (byInterval.has(seconds)) continue;
      health.stop();
      this.#health.delete(seconds);
    }
    for (const [seconds, gateways] of byInterval) {
      let health = this.#health.get(seconds);
      if (!health) {
        health = startGatewayHealth(srf, { intervalMs: seconds * 1000, log: this.opts.log });
        this.#health.set(seconds, health);
      }
      health.set(gateways);
    }
  }

  async #register(srf: Srf, all: readonly CarrierEntry[]): Promise<void> {
    const wanted = new Map(all.filter((c) => c.registration && c.auth).map((c) => [c.id, c]));
    const stopping: Array<Promise<void>> = [];
    for (const [id, r] of this.#registrations) {
      const c = wanted.get(id);
      if (c && fingerprint(c) === r.fingerprint) {
        r.carrier = c;
        continue;
      }
      stopping.push(r.registration.stop());
      this.#registrations.delete(id);
    }
    await Promise.allSettled(stopping);
    for (const c of wanted.values()) {
      if (this.#registrations.has(c.id)) continue;
      const { host, port, transport, expires } = c.registration!;
      const log = this.opts.log.child({ carrier: c.name });
      const registration = startRegistration(srf, {
        host, port, transport, expires, username: c.auth!.username, password: c.auth!.password, realm: c.auth!.realm, contactUser: this.contactUserOf(c),
      }, { log, ...(this.opts.registrationBackoff ? { backoff: this.opts.registrationBackoff } : {}) });
      this.#registrations.set(c.id, { fingerprint: fingerprint(c), carrier: c, registration });
    }
  }
}

/** What a registration depends on: a change to any of it registers anew. */
const fingerprint = (c: CarrierEntry) => JSON.stringify([c.registration, c.auth]);
