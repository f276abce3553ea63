// The two connections the engine lives on: the drachtio wire protocol (SIP) and FreeSWITCH's event socket
// (media). drachtio-srf reconnects by itself; the media server is re-dialled here with backoff, because
// drachtio-fsmrf gives up on a MediaServer once its event socket drops (FreeSWITCH restart).
import Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import { Mrf, type MediaServer, type MrfConnectOptions } from './fsmrf.js';

export interface ConnectionOptions {
  drachtio: { host: string; port: number; secret: string };
  freeswitch: { host: string; port: number; password: string };
  media: { listenAddress: string; listenPort: number; advertisedAddress: string | null };
}

const RETRY_MIN_MS = 250;
const RETRY_MAX_MS = 5_000;

export class EngineConnection {
  readonly srf = new Srf();
  #ms: MediaServer | null = null;
  #sipUp = false;
  #stopped = false;
  #retryTimer: NodeJS.Timeout | null = null;
  #retryMs = RETRY_MIN_MS;
  #waiters: Array<() => void> = [];

  constructor(private readonly opts: ConnectionOptions, private readonly log: Logger) {
    this.srf.on('connect', (err: Error | null, hostport: string) => {
      if (err) return this.log.warn({ err }, 'drachtio refused the connection');
      this.#sipUp = true;
      this.log.info({ hostport }, 'connected to drachtio-server');
      this.#wake();
    });
    this.srf.on('error', (err: Error) => {
      if (this.#sipUp) this.log.warn({ err: err.message }, 'drachtio connection lost; reconnecting');
      this.#sipUp = false;
    });
    this.srf.on('disconnect', () => { this.#sipUp = false; });
  }

  get sipUp(): boolean { return this.#sipUp; }
  get mediaUp(): boolean { return this.#ms !== null && this.#ms.connected(); }

  /** The media server, or null while FreeSWITCH is away (callers then refuse the call). */
  get media(): MediaServer | null { return this.mediaUp ? this.#ms : null; }

  /** Resolves once both sides are up; start() fails loudly if that takes longer than `timeoutMs`. */
  async start(timeoutMs = 15_000): Promise<void> {
    this.srf.connect({ host: this.opts.drachtio.host, port: this.opts.drachtio.port, secret: this.opts.drachtio.secret });
    void this.#dialMedia();
    const deadline = Date.now() + timeoutMs;
    while (!(this.sipUp && this.mediaUp)) {
      if (Date.now() > deadline) {
        throw new Error(`engine not reachable: drachtio ${this.sipUp ? 'up' : 'down'} (${this.opts.drachtio.host}:${this.opts.drachtio.port}), `
          + `FreeSWITCH ${this.mediaUp ? 'up' : 'down'} (${this.opts.freeswitch.host}:${this.opts.freeswitch.port})`);
      }
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 200);
        this.#waiters.push(() => { clearTimeout(timer); resolve(); });
      });
    }
  }

  stop(): void {
    this.#stopped = true;
    if (this.#retryTimer) clearTimeout(this.#retryTimer);
    this.#dropMedia();
    try { this.srf.disconnect(); } catch { /* never connected */ }
  }

  #wake(): void {
    for (const w of this.#waiters.splice(0)) w();
  }

  async #dialMedia(): Promise<void> {
    if (this.#stopped) return;
    const { freeswitch, media } = this.opts;
    const connectOpts: MrfConnectOptions = {
      address: freeswitch.host, port: freeswitch.port, secret: freeswitch.password,
      listenAddress: media.listenAddress, listenPort: media.listenPort,
      ...(media.advertisedAddress ? { advertisedAddress: media.advertisedAddress } : {}),
    };
    try {
      const ms = await new Mrf(this.srf).connect(connectOpts);
      if (this.#stopped) { ms.disconnect(); return; }
      this.#ms = ms;
      this.#retryMs = RETRY_MIN_MS;
      ms.on('end', () => {
        this.log.warn('FreeSWITCH event socket lost; reconnecting');
        this.#dropMedia();
        this.#scheduleMedia();
      });
      ms.on('error', (err: Error) => this.log.warn({ err: err.message }, 'FreeSWITCH media server error'));
      this.log.info({ freeswitch: `${freeswitch.host}:${freeswitch.port}` }, 'connected to FreeSWITCH');
      this.#wake();
    } catch (err) {
      this.log.debug({ err: (err as Error).message }, 'FreeSWITCH not reachable yet');
      this.#scheduleMedia();
    }
  }

  #scheduleMedia(): void {
    if (this.#stopped || this.#retryTimer) return;
    this.#retryTimer = setTimeout(() => { this.#retryTimer = null; void this.#dialMedia(); }, this.#retryMs);
    this.#retryMs = Math.min(this.#retryMs * 2, RETRY_MAX_MS);
  }

  #dropMedia(): void {
    const ms = this.#ms;
    this.#ms = null;
    if (!ms) return;
    ms.removeAllListeners();
    try { ms.disconnect(); } catch { /* already closed */ }
  }
}
