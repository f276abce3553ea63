// DrachtioEngine: the EnginePort on drachtio-server (SIP) and FreeSWITCH (media) through drachtio-srf and
// drachtio-fsmrf. This class only wires the pieces: each concern (connection, registrar, INVITE
// classification, media legs, outbound calls) lives in its own module.
import { randomBytes, randomUUID } from 'node:crypto';
import { isIP } from 'node:net';
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type { CarrierLinkStatus, EngineHealth, EnginePort, MediaServerStatus, IncomingCallHandler, OriginateRequest, OriginateResult, TrunkCredentials, TrunkLookup } from '../port.js';
import type { AudioGatewayConfig } from './audio-tap.js';
import { NO_CARRIERS, type CarrierDirectory } from './carriers.js';
import { CarrierLinks } from './carrier-links.js';
import { EngineConnection, type ConnectionOptions, type LostServer } from './connection.js';
import { CredentialStore } from './credentials.js';
import { DigestAuthority } from './digest.js';
import { DrachtioIncomingCall } from './incoming.js';
import { classifyInvite } from './invite.js';
import type { DrachtioLeg } from './leg.js';
import { originate } from './originate.js';
import { OWNER_VARIABLE } from './channel-hooks.js';
import type { OnServer } from './media-pool.js';
import type { MediaCache } from '../../media/media-cache.js';
import { PromptCache } from '../../media/prompt-cache.js';
import { freeswitchSpeech } from './speech-render.js';
import { byeInside } from './dialogs.js';
import { ConferenceRooms } from './conference-rooms.js';
import { Registrar, type RegistrationStore } from './registrar.js';

export interface DrachtioEngineOptions extends ConnectionOptions {
  /** The SIP domain trunks authenticate in (digest realm). */
  realm: string;
  carriers?: CarrierDirectory;
  /** Where registrations are kept (the store), so they survive a restart. */
  registrations: RegistrationStore;
  /** Signs digest nonces: the same on every control plane of a cluster (derived from the master key). */
  digestKey?: Buffer;
  /** Carrier registration retries (default 1 s doubling to 60 s). */
  registrationBackoff?: { firstMs: number; maxMs: number };
}

export class DrachtioEngine implements EnginePort {
  readonly kind = 'drachtio' as const;
  readonly #conn: EngineConnection;
  readonly #credentials: CredentialStore;
  readonly #registrar: Registrar;
  readonly #carriers: CarrierDirectory;
  readonly #links: CarrierLinks;
  readonly #legs = new Set<DrachtioLeg>();
  readonly #pending = new Set<DrachtioIncomingCall>();
  readonly #audio: AudioGatewayConfig;
  #handler: IncomingCallHandler | null = null;
  #started = false;
  #prompts: PromptCache | null = null;
  readonly #rooms: ConferenceRooms;

  constructor(opts: DrachtioEngineOptions, private readonly log: Logger) {
    this.#conn = new EngineConnection(opts, log);
    this.#credentials = new CredentialStore(new DigestAuthority(opts.realm, Date.now, opts.digestKey));
    this.#registrar = new Registrar(this.#credentials, opts.registrations, log);
    this.#carriers = opts.carriers ?? NO_CARRIERS;
    this.#links = new CarrierLinks(this.#carriers, {
      log, contactKey: opts.digestKey ?? randomBytes(32), ...(opts.registrationBackoff ? { registrationBackoff: opts.registrationBackoff } : {}),
    });
    // Media streams' RTP sockets live where FreeSWITCH already reaches this process (its event socket); an SDP
    // needs an address, so an advertised host name leaves the listen address in the offer.
    const { listenAddress, advertisedAddress } = opts.media;
    this.#audio = {
      bind: listenAddress, address: advertisedAddress && isIP(advertisedAddress) === 4 ? advertisedAddress : listenAddress,
      media: (near) => this.#conn.pickMedia(near),
    };
    this.#rooms = new ConferenceRooms(this.#conn.media);
    this.#conn.onLost((server) => this.#onLost(server));
  }

  async start(): Promise<void> {
    // drachtio-srf generates a handler method per SIP verb; its typings only declare invite().
    const srf = this.#conn.srf as Srf & Record<'register' | 'options', (fn: (req: Srf.SrfRequest, res: Srf.SrfResponse) => void) => void>;
    srf.register((req, res) => void this.#registrar.handle(req, res));
    srf.invite((req, res) => void this.#onInvite(req, res));
    srf.options((_req, res) => res.send(200));
    await this.#conn.start();
    await this.#links.start(this.#conn.srf);
    this.#started = true;
  }

  /** Hangs up every call still in progress, then closes both connections. */
  async stop(): Promise<void> {
    this.#started = false;
    await Promise.allSettled([...this.#legs].map((leg) => leg.hangup()));
    for (const call of this.#pending) await call.reject('unavailable').catch(() => undefined);
    await this.#links.stop();
    this.#conn.stop();
  }

  health(): EngineHealth {
    const { sipUp, mediaUp } = this.#conn;
    const servers = this.#conn.media.status();
    const media = servers.length === 1 ? (mediaUp ? 'connected' : 'disconnected')
      : `${servers.filter((m) => m.state === 'up').length} of ${servers.length} taking calls (${servers.map((m) => `${m.name} ${m.state}`).join(', ')})`;
    return { ok: this.#started && sipUp && mediaUp, detail: `drachtio ${sipUp ? 'connected' : 'disconnected'}, FreeSWITCH ${media}` };
  }

  /** The media server a conference room lives on (host:port), or null when it has no member. */
  conferenceServer(room: string): string | null { return this.#rooms.serverOf(room); }

  carrierLinks(): CarrierLinkStatus { return this.#links.status(); }

  /** The media servers: state and load (channels), for operators. */
  mediaServers(): MediaServerStatus[] { return this.#conn.media.status(); }

  /** Drain (no new calls; calls on it finish) or undrain a media server by name (host:port); false if none has it. */
  drainMediaServer(name: string, on: boolean): boolean {
    const link = this.#conn.media.byName(name);
    link?.setDraining(on);
    return link !== undefined;
  }

  /** Credentials live in memory and are checked at each REGISTER/INVITE: accepted as soon as they are stored. */
  async provisionTrunk(trunk: TrunkCredentials): Promise<void> {
    if (trunk.password === null) throw new Error(`no usable password for ${trunk.endpointName}`);
    this.#credentials.set(trunk);
  }

  lookUpTrunksWith(lookup: TrunkLookup): void { this.#credentials.lookUpWith(lookup); }

  async deprovisionTrunk(endpointName: string): Promise<void> {
    this.#credentials.delete(endpointName);
    await this.#registrar.forget(endpointName);
  }

  onIncomingCall(handler: IncomingCallHandler): void { this.#handler = handler; }

  async stopIntake(): Promise<void> { this.#conn.stopIntake(); }

  originate(req: OriginateRequest): Promise<OriginateResult> {
    return originate(req, {
      srf: this.#conn.srf, media: (near) => this.#conn.pickMedia(near), carriers: this.#carriers, registrar: this.#registrar,
      log: this.log, newId: () => `dr-${randomUUID()}`, track: (leg) => this.#track(leg), gatewayUp: (key) => this.#links.isUp(key),
    }).catch((err: unknown) => {
      this.log.warn({ err }, 'originate failed unexpectedly');
      return { answered: false, cause: 'failed' } as const;
    });
  }

  /**
   * A dead instance's calls: drachtio-server still holds their far ends' dialogs (it answers their BYEs with 481
   * while no app manages them), so each far end gets a BYE sent inside its dialog; then every FreeSWITCH channel
   * still tagged with a dead instance (see channel-hooks.ts), calls being set up included, is hung up.
   */
  async releaseOrphans(instanceIds: readonly string[], orphanRefs: readonly string[]): Promise<void> {
    await Promise.all(orphanRefs.map((id) => byeInside(this.#conn.srf, id).catch((err: unknown) => this.log.info({ err: (err as Error).message, dialog: id }, 'orphan dialog already gone'))));
    const servers = this.#conn.media.connected();
    if (servers.length === 0) throw new Error('FreeSWITCH is not connected');
    for (const ms of servers) for (const id of instanceIds) await ms.api(`hupall NORMAL_CLEARING ${OWNER_VARIABLE} ${id}`);
  }

  /** Calls in progress (ringing or answered): 0 once every call has ended, for leak checks. */
  activeLegs(): number { return this.#legs.size + this.#pending.size; }

  /**
   * SIP dialogs still open in drachtio-srf (two per answered call: the far end's and FreeSWITCH's), for leak
   * checks; null when drachtio-srf's internals changed.
   */
  openDialogs(): number | null { return this.#conn.openDialogs; }

  async seatRegistered(endpointName: string): Promise<boolean> { return (await this.#registrar.lookup(endpointName)).length > 0; }

  /** Current registrations of a trunk (tests, the trunk API's view of a seat). */
  registrations(endpointName: string): ReturnType<Registrar['lookup']> { return this.#registrar.lookup(endpointName); }

  /**
   * A connection calls lived on is gone: the calls on it are ended now instead of waiting for a SIP or media
   * event that will not come. There is one drachtio-server, so losing it ends every call; losing a media server
   * ends the calls with media on it, and the others go on. Unanswered calls decide for themselves what they lost
   * (DrachtioIncomingCall.lost).
   */
  #onLost(server: LostServer): void {
    const cause = server.kind === 'media' ? 'media-server-lost' : 'sip-server-lost';
    const onIt = server.kind === 'media' ? (ep: OnServer | null) => ep !== null && server.link.holds(ep) : () => true;
    const legs = [...this.#legs].filter((leg) => leg.usesMedia(onIt));
    const pending = [...this.#pending].filter((call) => call.usesMedia(onIt));
    if (legs.length + pending.length > 0) {
      this.log.warn({ cause, server: server.kind === 'media' ? server.link.name : 'drachtio', answered: legs.length, unanswered: pending.length },
        'ending the calls in progress on the lost server');
    }
    for (const leg of legs) leg.lost(cause);
    for (const call of pending) call.lost(cause);
  }

  usePromptCache(media: MediaCache): PromptCache {
    this.#prompts = new PromptCache(media, freeswitchSpeech(() => this.#conn.pickMedia()), this.log.child({ component: 'prompts' }));
    return this.#prompts;
  }

  #track(leg: DrachtioLeg): void {
    leg.audioGateway = this.#audio;
    leg.prompts = this.#prompts;
    leg.rooms = this.#rooms;
    this.#legs.add(leg);
    void leg.ended.then(() => this.#legs.delete(leg));
  }

  async #onInvite(req: Srf.SrfRequest, res: Srf.SrfResponse): Promise<void> {
    if (!this.#handler || !this.#conn.mediaUp) {
      res.send(503);
      return;
    }
    let verdict: Awaited<ReturnType<typeof classifyInvite>>;
    try {
      verdict = await classifyInvite(req, res, { carriers: this.#carriers, registered: (user) => this.#links.registeredCarrier(user) }, this.#credentials, this.log);
    } catch (err) {
      // The carrier list could not be read (database unreachable): the caller may retry elsewhere.
      this.log.error({ err }, 'INVITE not classified; refused');
      res.send(503);
      return;
    }
    if (!verdict.accept) return;
    const call = new DrachtioIncomingCall(
      req.get('Call-ID'), verdict.from, verdict.to, verdict.source, req, res,
      () => this.#conn.pickMedia(), this.#conn.srf, this.log.child({ sipCallId: req.get('Call-ID') }),
      (leg) => {
        this.#pending.delete(call);
        if (verdict.carrier) leg.keysBy(verdict.carrier.dtmf);
        this.#track(leg);
      },
    );
    this.#pending.add(call);
    void call.ended.then(() => this.#pending.delete(call));
    try {
      this.#handler(call);
    } catch (err) {
      this.log.error({ err }, 'incoming-call handler threw; call refused');
      void call.reject('unavailable').catch(() => undefined);
    }
  }
}
