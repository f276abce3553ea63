// Every FreeSWITCH this control plane uses (FREESWITCH_SERVERS): where a new call's media goes (the least loaded
// server that takes calls), where a call's further media goes (beside the media it is bridged or relayed with),
// regular probes (health and load), and drain. Losing one server is reported for that server alone.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { MediaServer } from './fsmrf.js';
import type { MediaServerStatus } from '../port.js';
import { MediaLink, type MediaServerAddress } from './media-link.js';

export interface MediaPoolOptions {
  srf: Srf;
  servers: readonly MediaServerAddress[];
  /** A fixed listen port is used by the first server; each further server takes the next port (0: any free port). */
  listen: { address: string; port: number; advertisedAddress: string | null };
  instanceId?: string;
  onUp(): void;
  onLost(link: MediaLink): void;
}

/** How often each server is asked for its channel count (load, and health: an unanswered probe stops new calls). */
const PROBE_EVERY_MS = 1_000;


/** Something with media on a server: an fsmrf endpoint (its `mediaserver` names the server). */
export interface OnServer { readonly mediaserver?: unknown }

export class MediaPool {
  readonly links: readonly MediaLink[];
  #probeTimer: NodeJS.Timeout | null = null;

  constructor(opts: MediaPoolOptions, log: Logger) {
    if (opts.servers.length === 0) throw new Error('at least one FreeSWITCH server is needed');
    this.links = opts.servers.map((address, i) => new MediaLink({
      srf: opts.srf, address, instanceId: opts.instanceId, onUp: opts.onUp, onLost: opts.onLost,
      listen: { ...opts.listen, port: opts.listen.port === 0 ? 0 : opts.listen.port + i },
    }, log));
  }

  start(): void {
    for (const link of this.links) link.start();
    this.#probeTimer = setInterval(() => { for (const link of this.links) void link.probe(); }, PROBE_EVERY_MS);
    this.#probeTimer.unref();
  }

  stop(): void {
    if (this.#probeTimer) clearInterval(this.#probeTimer);
    for (const link of this.links) link.stop();
  }

  /** Some server is connected (calls on it can go on). */
  get anyConnected(): boolean { return this.links.some((l) => l.connected); }
  /** Some server takes new calls (an unhealthy one counts when no healthy one is left: see pick). */
  get available(): boolean { return this.links.some((l) => l.connected && !l.draining); }

  /**
   * The server for new media. Beside `near` (media it will be bridged with) when that server is still connected,
   * draining or not: a call already there finishes there. Otherwise the least loaded server taking new calls; when
   * every connected server is unhealthy (slow to answer probes, as under heavy load), the least loaded of those:
   * a probe's delay alone never refuses calls a connected server could carry.
   */
  pick(near?: OnServer): MediaServer | null {
    if (near) {
      const home = this.linkOf(near);
      if (home?.connected) return this.#placeOn(home);
    }
    const best = this.#leastLoaded((l) => l.available) ?? this.#leastLoaded((l) => l.connected && !l.draining);
    return best ? this.#placeOn(best) : null;
  }

  #leastLoaded(eligible: (link: MediaLink) => boolean): MediaLink | null {
    let best: MediaLink | null = null;
    for (const link of this.links) if (eligible(link) && (!best || link.load < best.load)) best = link;
    return best;
  }

  /** The server `thing` has its media on, if it is one of ours. */
  linkOf(thing: OnServer): MediaLink | undefined { return this.links.find((l) => l.holds(thing)); }

  /** Every connected server (operations that concern all of them: orphan clean-up). */
  connected(): MediaServer[] { return this.links.flatMap((l) => (l.server ? [l.server] : [])); }

  byName(name: string): MediaLink | undefined { return this.links.find((l) => l.name === name); }

  status(): MediaServerStatus[] { return this.links.map((l) => ({ name: l.name, state: l.state, load: l.load })); }

  #placeOn(link: MediaLink): MediaServer | null {
    const server = link.server;
    if (server) link.placed();
    return server;
  }
}
