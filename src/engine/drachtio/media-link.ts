// One FreeSWITCH media server as the engine sees it: its event-socket connection (re-dialled with backoff, since
// drachtio-fsmrf gives up on a MediaServer whose socket dropped), whether it takes new calls (up, healthy, not
// draining) and how loaded it is. FreeSWITCH is dialled only once `sofia status` lists the media profile
// (mod_event_socket loads before mod_sofia, and fsmrf throws an uncaught exception when the profile is missing).
import { settledWithin } from '../../waits.js';
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import { eslApi } from './esl-probe.js';
import { hookChannels } from './channel-hooks.js';
import { catchAbandonedDestroys, Mrf, sendWithoutDelay, type MediaServer, type MrfConnectOptions } from './fsmrf.js';
import { MediaLoad } from './media-load.js';
import type { MediaServerStatus } from '../port.js';

export interface MediaServerAddress { host: string; port: number; password: string }

export interface MediaLinkOptions {
  srf: Srf;
  address: MediaServerAddress;
  /** Where FreeSWITCH's outbound event-socket connections reach this process. */
  listen: { address: string; port: number; advertisedAddress: string | null };
  instanceId?: string;
  onUp(): void;
  /** The event socket of a server that was up has ended: its calls have lost their media. */
  onLost(link: MediaLink): void;
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 2_000;
/** fsmrf's default media profile, and the line of `sofia status` it needs (its own regular expression). */
const MEDIA_PROFILE = /^\s*drachtio_mrf\s.*sip:mod_sofia@(?:[0-9]{1,3}\.){3}[0-9]{1,3}:\d+.*RUNNING/m;
/** A health probe unanswered this long marks the server unhealthy (no new calls) until one is answered. */
const PROBE_TIMEOUT_MS = 2_000;

export type MediaLinkState = MediaServerStatus['state'];

export class MediaLink {
  readonly name: string;
  #ms: MediaServer | null = null;
  /** fsmrf's own object behind the channel-hooks proxy: what an endpoint's `mediaserver` is. */
  #raw: MediaServer | null = null;
  #stopped = false;
  #retryTimer: NodeJS.Timeout | null = null;
  #retryMs = RETRY_MIN_MS;
  #healthy = true;
  #draining = false;
  readonly #load = new MediaLoad();

  constructor(private readonly opts: MediaLinkOptions, private readonly log: Logger) {
    this.name = `${opts.address.host}:${opts.address.port}`;
  }

  get connected(): boolean { return this.#ms !== null && this.#ms.connected(); }
  /** Takes new calls: connected, answering probes, not draining. */
  get available(): boolean { return this.connected && this.#healthy && !this.#draining; }
  /** Sessions FreeSWITCH reported at the last probe, plus media placed here that the probe could not count. */
  get load(): number { return this.#load.value; }
  get draining(): boolean { return this.#draining; }
  get state(): MediaLinkState {
    if (!this.connected) return 'down';
    if (!this.#healthy) return 'unhealthy';
    return this.#draining ? 'draining' : 'up';
  }

  /** The server, connected or not (calls already on it keep using it while it drains). */
  get server(): MediaServer | null { return this.connected ? this.#ms : null; }

  /** Whether an fsmrf endpoint lives on this server. */
  holds(endpoint: { readonly mediaserver?: unknown }): boolean { return this.#raw !== null && endpoint.mediaserver === this.#raw; }

  setDraining(on: boolean): void {
    if (on !== this.#draining) this.log.info({ server: this.name, draining: on }, on ? 'media server draining: no new calls' : 'media server takes new calls again');
    this.#draining = on;
  }

  /** A call was just placed here: counted until a probe reports FreeSWITCH's own figure with it (see MediaLoad). */
  placed(): void { this.#load.picked(); }

  start(): void { void this.#dial(); }

  /** Asks FreeSWITCH how many sessions it has (its live count, not the channel table that lags); no answer in time marks it unhealthy. */
  async probe(): Promise<void> {
    const ms = this.server;
    if (!ms) return;
    const sentAt = this.#load.probeSent();
    try {
      const reply = await settledWithin(ms.api('status'), PROBE_TIMEOUT_MS);
      if (reply === undefined) throw new Error('no answer');
      const count = /^(\d+) session\(s\) - peak/m.exec(reply)?.[1];
      if (count === undefined) throw new Error(`unexpected reply: ${reply.trim().slice(0, 80)}`);
      this.#load.probed(Number(count), sentAt);
      if (!this.#healthy) this.log.info({ server: this.name }, 'media server answers probes again');
      this.#healthy = true;
    } catch (err) {
      if (this.#healthy) this.log.warn({ server: this.name, err: (err as Error).message }, 'media server did not answer a probe; no new calls for it');
      this.#healthy = false;
    }
  }

  stop(): void {
    this.#stopped = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#drop();
  }

  async #dial(): Promise<void> {
    if (this.#stopped) return;
    const { address, listen, srf, instanceId } = this.opts;
    const connectOpts: MrfConnectOptions = {
      address: address.host, port: address.port, secret: address.password, listenAddress: listen.address, listenPort: listen.port,
      ...(listen.advertisedAddress ? { advertisedAddress: listen.advertisedAddress } : {}),
    };
    try {
      const status = await eslApi(address.host, address.port, address.password, 'sofia status');
      if (!MEDIA_PROFILE.test(status)) throw new Error('the drachtio_mrf SIP profile is not running yet');
      if (this.#stopped) return;
      const ms = await new Mrf(srf).connect(connectOpts);
      if (this.#stopped) { ms.disconnect(); return; }
      sendWithoutDelay(ms);
      catchAbandonedDestroys(ms);
      this.#raw = ms;
      this.#ms = hookChannels(ms, { instanceId, creating: () => this.#load.creating() });
      this.#retryMs = RETRY_MIN_MS;
      this.#healthy = true;
      this.#load.reset();
      ms.on('end', () => {
        this.log.warn({ server: this.name }, 'FreeSWITCH event socket lost; reconnecting');
        this.#drop();
        this.#schedule();
        if (!this.#stopped) this.opts.onLost(this);
      });
      ms.on('error', (err: Error) => this.log.warn({ server: this.name, err: err.message }, 'FreeSWITCH media server error'));
      this.log.info({ freeswitch: this.name }, 'connected to FreeSWITCH');
      this.opts.onUp();
    } catch (err) {
      this.log.debug({ server: this.name, err: (err as Error).message }, 'FreeSWITCH not reachable yet');
      this.#schedule();
    }
  }

  #schedule(): void {
    if (this.#stopped || this.#retryTimer) return;
    this.#retryTimer = setTimeout(() => { this.#retryTimer = null; void this.#dial(); }, this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
  }

  /** `#raw` stays: the engine asks which calls were on this server after it is gone. */
  #drop(): void {
    const ms = this.#ms;
    this.#ms = null;
    if (!ms) return;
    ms.removeAllListeners();
    try { ms.disconnect(); } catch { /* already closed */ }
  }
}
