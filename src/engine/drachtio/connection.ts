// The connections the engine lives on: the drachtio wire protocol (SIP) and the event sockets of its FreeSWITCH
// media servers (media-pool.ts, one media-link.ts each). drachtio-srf reconnects by itself; each media server is
// re-dialled with backoff by its link, because drachtio-fsmrf gives up on a MediaServer once its socket drops.
//
// "Up" means calls can be taken, not that a socket is open:
// - SIP is up once drachtio-server has processed this app's route registrations on the current connection.
//   drachtio-srf emits 'connect' after authenticating and *writing* `route|invite` etc. (without awaiting their
//   replies), and emits 'close' (never 'disconnect', whatever its typings say) when the connection drops. So
//   'close' marks SIP down, and after 'connect' one wire round trip (a ping, answered in order after the routes)
//   confirms the routes before SIP is marked up.
// - Media is up once fsmrf holds a ready MediaServer for at least one media server.
// Losing a connection is reported to `onLost` listeners (the engine ends the calls that lived on it): the
// drachtio connection when a connection that had logged in closes, a media server when its event socket ends.
import type { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { MediaServer } from './fsmrf.js';
import type { MediaLink, MediaServerAddress } from './media-link.js';
import { MediaPool } from './media-pool.js';

export interface ConnectionOptions {
  drachtio: { host: string; port: number; secret: string };
  /** Every media server (FREESWITCH_SERVERS); new calls go to the least loaded. */
  freeswitch: readonly MediaServerAddress[];
  media: { listenAddress: string; listenPort: number; advertisedAddress: string | null };
  /** The control-plane instance whose channels this connection opens (tagged on FreeSWITCH; see channel-hooks.ts). */
  instanceId?: string;
}

const RETRY_MAX_MS = 2_000;
const ROUND_TRIP_TIMEOUT_MS = 5_000;

/** Which server a lost connection led to: drachtio-server (SIP dialogs) or one FreeSWITCH (media endpoints). */
export type LostServer = { kind: 'sip' } | { kind: 'media'; link: MediaLink };

/** The parts of drachtio-srf's agent (lib/drachtio-agent.js, lib/wire-protocol.js) used for the round trip and stop. */
interface DrachtioAgent {
  wp: { send(socket: Socket, msg: string): string; closing?: boolean; reconnectVars?: { retryTimer: NodeJS.Timeout | null } };
  mapServer: Map<Socket, { authenticated: boolean; pendingRequests: Map<string, (token: string[]) => void> }>;
  /** The methods asked of drachtio-server, asked again on every (re)connection. */
  verbs: Map<string, unknown>;
}

function agentOf(srf: Srf): DrachtioAgent | null {
  const client = (srf as unknown as { app?: { client?: Partial<DrachtioAgent> } }).app?.client;
  return client && typeof client.wp?.send === 'function' && client.mapServer instanceof Map && client.verbs instanceof Map ? client as DrachtioAgent : null;
}

/** The SIP methods that bring new work (calls, seats); a draining node asks drachtio-server for them no more. */
const INTAKE_METHODS = ['invite', 'register'] as const;

export class EngineConnection {
  readonly srf = new Srf();
  readonly media: MediaPool;
  #sipUp = false;
  /** Bumped on every drachtio connect and close: a round trip only counts for the connection it started on. */
  #sipGeneration = 0;
  #stopped = false;
  #waiters: Array<() => void> = [];
  /** True from a successful login until that connection closes: a close before any login loses nothing. */
  #sipSession = false;
  readonly #lostListeners = new Set<(server: LostServer) => void>();

  constructor(private readonly opts: ConnectionOptions, private readonly log: Logger) {
    this.media = new MediaPool({
      srf: this.srf, servers: opts.freeswitch, instanceId: opts.instanceId,
      listen: { address: opts.media.listenAddress, port: opts.media.listenPort, advertisedAddress: opts.media.advertisedAddress },
      onUp: () => this.#wake(),
      onLost: (link) => { if (!this.#stopped) this.#lost({ kind: 'media', link }); },
    }, log);
    this.srf.on('connect', (err: Error | null, hostport: string) => {
      if (err) return this.log.warn({ err }, 'drachtio refused the connection');
      if (this.#stopped) return this.#closeSrf(); // a connection that was being made when stop() ran
      this.#sipSession = true;
      void this.#confirmRoutes(++this.#sipGeneration, hostport);
    });
    this.srf.on('error', (err: Error) => {
      if (this.#sipUp) this.log.warn({ err: err.message }, 'drachtio connection lost; reconnecting');
      this.#sipDown();
    });
    // Srf's typings list SIP methods and a 'disconnect' it never emits; 'close' is an EventEmitter event.
    (this.srf as EventEmitter).on('close', () => {
      if (this.#sipUp && !this.#stopped) this.log.warn('drachtio connection closed; reconnecting');
      this.#sipDown();
      if (this.#sipSession) {
        this.#sipSession = false;
        if (!this.#stopped) this.#lost({ kind: 'sip' });
      }
    });
  }

  /**
   * `fn` runs (synchronously) when a connection calls were living on is lost: 'sip' when the drachtio connection
   * closes (drachtio-server's dialogs are unreachable from now on, even if it is still running), 'media' when one
   * FreeSWITCH event socket ends. By then the connection is already marked down, so no new call goes there.
   */
  onLost(fn: (server: LostServer) => void): void { this.#lostListeners.add(fn); }

  #lost(server: LostServer): void {
    for (const fn of [...this.#lostListeners]) {
      try { fn(server); } catch (err) { this.log.error({ err, server: server.kind }, 'lost-connection listener threw'); }
    }
  }

  get sipUp(): boolean { return this.#sipUp; }
  /** Some media server takes new calls. */
  get mediaUp(): boolean { return this.media.available; }

  /** SIP dialogs drachtio-srf holds (its private dialog table), for leak checks; null if srf's internals changed. */
  get openDialogs(): number | null {
    const dialogs = (this.srf as unknown as { _dialogs?: unknown })._dialogs;
    return dialogs instanceof Map ? dialogs.size : null;
  }

  /** The media server for a new call (see MediaPool.pick), or null while none takes calls (callers refuse the call). */
  pickMedia(near?: Parameters<MediaPool['pick']>[0]): MediaServer | null { return this.media.pick(near); }

  /** Resolves once both sides are up; start() fails loudly if that takes longer than `timeoutMs`. */
  async start(timeoutMs = 15_000): Promise<void> {
    const { host, port, secret } = this.opts.drachtio;
    // Without a ceiling drachtio-srf's backoff grows by 1.7x per attempt (minutes apart after a long outage).
    this.srf.connect({ host, port, secret, reconnect: { retryMaxDelay: RETRY_MAX_MS } } as Srf.SrfConfig);
    this.media.start();
    const deadline = Date.now() + timeoutMs;
    while (!(this.sipUp && this.mediaUp)) {
      if (this.#stopped) throw new Error('engine connection stopped while starting');
      if (Date.now() > deadline) {
        const media = this.media.status().map((m) => `${m.name} ${m.state}`).join(', ');
        throw new Error(`engine not reachable: drachtio ${this.sipUp ? 'up' : 'down'} (${host}:${port}), FreeSWITCH ${media}`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.#waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }

  /**
   * Asks drachtio-server for no more new INVITEs and REGISTERs (a draining node); requests inside this node's dialogs
   * still come. drachtio-server (0.9+, remove_route) takes the node out of its rotation for every method at once
   * (ClientController::no_longer_wants_requests); srf forgets the methods, so a reconnection does not ask again,
   * also when the connection was down at the time (srf then sends nothing and keeps them: they are dropped here).
   */
  stopIntake(): void {
    const srf = this.srf as Srf & { unregisterForMessages(method: string): void };
    for (const method of INTAKE_METHODS) {
      try { srf.unregisterForMessages(method); } catch { /* never asked for, or asked for no more */ }
      agentOf(this.srf)?.verbs.delete(method);
    }
    this.log.info('drachtio-server asked for no more new calls or registrations');
  }

  stop(): void {
    this.#stopped = true;
    this.#sipDown();
    this.media.stop();
    this.#closeSrf();
  }

  /**
   * Ends the drachtio connection for good. srf.disconnect() throws while no connection is open (drachtio down,
   * between two retries) before it marks the client as closing, so its retry loop would run on and, once
   * drachtio is back, a stopped engine would register its routes again and be handed calls.
   */
  #closeSrf(): void {
    try { this.srf.disconnect(); } catch { /* no open connection: the retry loop is stopped below */ }
    const wp = agentOf(this.srf)?.wp;
    if (!wp) return;
    wp.closing = true;
    if (wp.reconnectVars?.retryTimer) {
      clearTimeout(wp.reconnectVars.retryTimer);
      wp.reconnectVars.retryTimer = null;
    }
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  #sipDown(): void {
    this.#sipUp = false;
    this.#sipGeneration++;
  }

  /** Marks SIP up once drachtio-server has answered a ping sent after the route registrations. */
  async #confirmRoutes(generation: number, hostport: string): Promise<void> {
    const agent = agentOf(this.srf);
    if (!agent) {
      this.log.warn('drachtio-srf internals changed: cannot confirm route registrations; trusting its connect event');
    }
    while (agent && generation === this.#sipGeneration && !this.#stopped) {
      const reply = await this.#ping(agent);
      if (reply === 'ok') break;
      // Gone already: its 'close' is on the way, and the next 'connect' confirms afresh.
      if (reply === 'no-connection') return;
      if (generation === this.#sipGeneration) this.log.warn('drachtio-server did not answer a ping; asking again');
    }
    if (generation !== this.#sipGeneration || this.#stopped) return;
    this.#sipUp = true;
    this.log.info({ hostport }, 'connected to drachtio-server');
    this.#wake();
  }

  /** One wire round trip on the authenticated connection: drachtio-server answers in order, after the routes. */
  #ping(agent: DrachtioAgent): Promise<'ok' | 'no-reply' | 'no-connection'> {
    const entry = [...agent.mapServer].find(([s, server]) => server.authenticated && !s.destroyed);
    if (!entry) return Promise.resolve('no-connection');
    const [socket, server] = entry;
    return new Promise((resolve) => {
      const timer = setTimeout(() => { server.pendingRequests.delete(id); resolve('no-reply'); }, ROUND_TRIP_TIMEOUT_MS);
      const id = agent.wp.send(socket, 'ping');
      server.pendingRequests.set(id, (token) => { clearTimeout(timer); resolve(token[0] === 'OK' ? 'ok' : 'no-reply'); });
    });
  }
}
