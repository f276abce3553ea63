// An INVITE that has been classified (carrier, trunk, client) but not answered. Media is prepared on demand:
// early recording needs a FreeSWITCH endpoint before the answer, so the same endpoint is then answered with.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import {
  EngineError, type CallLeg, type CallRecording, type CallRecordingOptions, type CallSource, type EngineLostCause, type HangupInfo,
  type IncomingCall,
} from '../port.js';
import { REJECT_STATUS } from './causes.js';
import type { Endpoint, MediaServer } from './fsmrf.js';
import { DrachtioLeg, endMediaDialog } from './leg.js';
import { readThroughJitterBuffer } from './jitter-buffer.js';
import { quietly } from './media-context.js';
import { startCallRecording } from './recording.js';
import { ringbackFile } from './ring-tones.js';
import { breakMedia, settleBreakOn } from './media.js';
import type { RingTone } from '../../markup/ring-tones.js';
import { settledWithin, whenAborted } from '../../waits.js';

/** How long a uuid_break may take to end the playback it breaks. */
const BREAK_LANDS_MS = 2_000;

/** WebRTC offers need the DTLS handshake that only connectCaller performs. */
const isDtls = (sdp: string) => /UDP\/TLS\/RTP\/SAVPF/.test(sdp) || /a=fingerprint/.test(sdp);

export class DrachtioIncomingCall implements IncomingCall {
  readonly ended: Promise<HangupInfo>;
  #resolveEnded!: (info: HangupInfo) => void;
  #gone = false;
  #lost: EngineLostCause | null = null;
  #leg: Promise<DrachtioLeg> | null = null;
  #endpoint: Promise<Endpoint> | null = null;
  /** The endpoint once created: which media server this unanswered call already uses. */
  #readied: Endpoint | null = null;

  constructor(
    readonly id: string,
    readonly from: string,
    readonly to: string,
    readonly source: CallSource,
    private readonly req: Srf.SrfRequest,
    private readonly res: Srf.SrfResponse,
    private readonly media: () => MediaServer | null,
    private readonly srf: Srf,
    private readonly log: Logger,
    private readonly track: (leg: DrachtioLeg) => void,
  ) {
    this.ended = new Promise((resolve) => { this.#resolveEnded = resolve; });
    req.on('cancel', () => {
      this.#finish({ cause: 'caller-hangup', by: 'remote' });
      void this.#endpoint?.then((ep) => ep.destroy()).catch(() => undefined);
    });
  }

  async ring(): Promise<void> {
    if (!this.#gone && !this.res.finalResponseSent) this.res.send(180);
  }

  /** Overlaps the FreeSWITCH endpoint's creation with the markup fetch (a WebRTC offer gets its media at answer). */
  prepareAnswer(): void {
    if (this.#gone || isDtls(this.req.body)) return;
    this.#prepareEndpoint().catch((err: unknown) => {
      this.log.debug({ err }, 'media not prepared ahead of the answer; the answer tries again');
    });
  }

  /**
   * 183 with the endpoint's SDP, then the ringback plays on the endpoint (FreeSWITCH's side of it is up already)
   * until `stop`. A WebRTC caller gets no early media: its DTLS handshake comes with the answer.
   */
  async earlyRingback(tone: RingTone, stop: AbortSignal): Promise<void> {
    if (this.#gone || this.#leg || stop.aborted || isDtls(this.req.body)) return;
    const ep = await this.#prepareEndpoint().catch((err: unknown) => {
      this.log.warn({ err: (err as Error).message }, 'no media for early ringback; the caller hears its own ringing');
      return null;
    });
    if (!ep || this.#gone || this.#leg || stop.aborted || this.res.finalResponseSent) return;
    const ctx = { isEnded: false, log: this.log };
    this.res.send(183, { body: ep.local.sdp, headers: { 'Content-Type': 'application/sdp' } });
    const playing = quietly(ctx, 'early ringback', () => ep.play(ringbackFile(tone)));
    await Promise.race([whenAborted(stop), this.ended]);
    if (this.#gone) return;
    await quietly(ctx, 'uuid_break', () => breakMedia(ep));
    await settledWithin(playing, BREAK_LANDS_MS);
    // A break that landed after the tone stopped would cut the answered call's first prompt.
    await quietly(ctx, 'break settle', () => settleBreakOn(ep));
  }

  /** The media this unanswered call already holds (early ringback, early recording), if any. */
  get endpoint(): Endpoint | null { return this.#readied; }

  async startEarlyRecording(opts: CallRecordingOptions): Promise<CallRecording> {
    if (isDtls(this.req.body)) {
      // No media exists before a WebRTC answer: start with it instead.
      const leg = await this.answer();
      return leg.startCallRecording(opts);
    }
    const ep = await this.#prepareEndpoint();
    const call = this;
    return startCallRecording({ ep, log: this.log, get isEnded() { return call.#gone; } }, opts);
  }

  answer(): Promise<CallLeg> {
    this.#leg ??= this.#answer();
    return this.#leg;
  }

  async reject(reason: 'busy' | 'rejected' | 'unavailable'): Promise<void> {
    if (this.#gone) return; // over already (caller's CANCEL, a lost server, a failed answer): nothing to refuse
    if (this.#leg) throw new EngineError(`drachtio: call ${this.id} is already answered`);
    if (!this.res.finalResponseSent) this.res.send(REJECT_STATUS[reason]);
    void this.#endpoint?.then((ep) => ep.destroy()).catch(() => undefined);
    this.#finish({ cause: reason === 'busy' ? 'busy' : 'rejected', by: 'local', sipStatus: REJECT_STATUS[reason] });
  }

  /**
   * The engine lost a server this unanswered call depends on. drachtio-server: the INVITE transaction died with
   * the connection (no answer can be sent), so the call is over. FreeSWITCH: only a call whose media was
   * already prepared (early recording, an answer under way) lost something; it is refused with 503. A call
   * without media yet is left alone: it can still be answered once FreeSWITCH is back, or be refused.
   */
  lost(cause: EngineLostCause): void {
    if (this.#gone) return;
    if (cause === 'media-server-lost' && !this.#endpoint) return;
    if (cause === 'media-server-lost' && !this.res.finalResponseSent) {
      try { this.res.send(503); } catch { /* the transaction is gone too */ }
    }
    this.#lost = cause;
    this.#finish({ cause, by: 'local', ...(cause === 'media-server-lost' ? { sipStatus: 503 } : {}) });
    void this.#endpoint?.then((ep) => {
      void ep.destroy().catch(() => undefined); // hangs up a channel FreeSWITCH still has
      endMediaDialog(ep);
    }).catch(() => undefined);
  }

  /**
   * Whether media this call already holds passes `on`. With none yet (nothing readied, or still being created on
   * a server that is now gone: that creation fails and the answer reports it), `on` is asked about null.
   */
  usesMedia(on: (ep: Endpoint | null) => boolean): boolean { return on(this.#readied); }

  #finish(info: HangupInfo): void {
    if (this.#gone) return;
    this.#gone = true;
    this.#resolveEnded(info);
  }

  #prepareEndpoint(chosen: MediaServer | null = null): Promise<Endpoint> {
    if (!this.#endpoint) {
      const pending = (async () => {
        const ms = chosen ?? this.media();
        if (!ms) throw new EngineError('drachtio: FreeSWITCH is not connected');
        const ep = await ms.createEndpoint({ remoteSdp: this.req.body });
        this.#readied = ep;
        return ep;
      })();
      // A failed attempt is not kept: the answer, or early recording, asks again.
      pending.catch(() => { if (this.#endpoint === pending) this.#endpoint = null; });
      this.#endpoint = pending;
    }
    return this.#endpoint;
  }

  async #answer(): Promise<DrachtioLeg> {
    if (this.#gone) throw new EngineError(`drachtio: call ${this.id} ended before it was answered`);
    // Media readied ahead is used as it is; otherwise a server is chosen now (once: choosing counts as load).
    const ms = this.#endpoint && !isDtls(this.req.body) ? null : this.media();
    if (!ms && !this.#endpoint) throw new EngineError('drachtio: FreeSWITCH is not connected');
    let ep: Endpoint;
    let dialog: Srf.Dialog;
    try {
      if (isDtls(this.req.body)) {
        ({ endpoint: ep, dialog } = await ms!.connectCaller(this.req, this.res));
        // Best effort: a failure must not fail a call that is up (its endpoint and dialog would be left open).
        await quietly({ isEnded: false, log: this.log }, 'jitter buffer', () => readThroughJitterBuffer(ms!, ep));
      } else {
        ep = await this.#prepareEndpoint(ms);
        dialog = await this.srf.createUAS(this.req, this.res, { localSdp: ep.local.sdp });
      }
    } catch (err) {
      void this.#endpoint?.then((e) => e.destroy()).catch(() => undefined);
      this.#finish({ cause: this.#gone ? 'caller-hangup' : 'failed', by: 'remote' });
      throw new EngineError(`drachtio: could not answer ${this.id}: ${(err as Error).message}`);
    }
    const leg = new DrachtioLeg(this.id, this.from, this.to, ep, dialog, this.log);
    this.track(leg);
    if (this.#lost) {
      // A server was lost while the answer was under way: the call is over already, the new leg goes at once.
      leg.lost(this.#lost);
      throw new EngineError(`drachtio: could not answer ${this.id}: ${this.#lost}`);
    }
    void leg.ended.then((info) => this.#finish(info));
    return leg;
  }
}
