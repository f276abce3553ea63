// An answered call with media: a SIP dialog towards the far end and a FreeSWITCH endpoint holding the audio.
// Either side going away ends the leg; ending the leg releases both (and with them bridges and recordings).
// The engine also ends it (`lost`) when the connection to the server holding one side drops: then no SIP or
// media event would ever say so.
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import {
  isEngineLost, EngineError, type AudioTap, type AudioTapOptions, type CallLeg, type CallRecording, type ConferenceJoinOptions, type ConferenceMember, type CallRecordingOptions, type CollectOptions, type CollectResult,
  type EngineLostCause, type HangupInfo, type ReferOutcome, type LegEvents, type LocalMedia, type RecordOptions, type RecordResult, type SayOptions,
} from '../port.js';
import { openDrachtioAudio, type AudioGatewayConfig } from './audio-tap.js';
import { causeOfQ850 } from './causes.js';
import { collectDigits } from './collect.js';
import { joinConference } from './conference.js';
import { bye, dialogIdOf, isUp } from './dialogs.js';
import { DigitBuffer } from './digits.js';
import { keyOfInfo } from './info-dtmf.js';
import type { Endpoint } from './fsmrf.js';
import { quietly, type MediaContext } from './media-context.js';
import { breakMedia, playTarget, sayStep, settleBreakOn, type MediaStep } from './media.js';
import { record } from './record.js';
import { referOut } from './refer.js';
import { transferAsked, type ReferRequest, type ReferResponse } from './transfer-asked.js';
import { startCallRecording } from './recording.js';
import type { PromptCache } from '../../media/prompt-cache.js';
import type { ConferenceRooms } from './conference-rooms.js';
import { ringbackFile } from './ring-tones.js';
import type { RingTone } from '../../markup/ring-tones.js';
import { settledWithin } from '../../waits.js';
import type { DtmfMode } from '../../store/carriers.js';
import { sendDigitsMs } from '../send-digits.js';

type Listeners = { [E in keyof LegEvents]: Set<LegEvents[E]> };

const TEARDOWN_MS = 3_000;

/**
 * An endpoint's own SIP dialog (drachtio <-> FreeSWITCH) normally ends with FreeSWITCH's BYE. After a lost server
 * none comes: this ends it (a BYE towards FreeSWITCH, or at once on a closed drachtio connection), or drachtio-srf
 * (and drachtio-server) would keep it for good.
 */
export function endMediaDialog(ep: Endpoint): void {
  if (isUp(ep.dialog)) void bye(ep.dialog);
}

export class DrachtioLeg implements CallLeg, MediaContext {
  readonly digits = new DigitBuffer();
  readonly ended: Promise<HangupInfo>;
  readonly #listeners: Listeners = { dtmf: new Set(), hangup: new Set(), transfer: new Set() };
  readonly #recordings = new Set<CallRecording>();
  /** What ends each media operation under way at stopMedia(). */
  readonly #mediaStops = new Set<() => void>();
  /** The last break sent, until the next media operation has settled it (settleBreak). */
  #breaking: Promise<void> | null = null;
  #resolveEnded!: (info: HangupInfo) => void;
  #endInfo: HangupInfo | null = null;
  #released: Promise<void> | null = null;
  #unbridge: (() => void) | null = null;
  /** Lent by the engine when it starts tracking the leg (see DrachtioEngine.#track); media streams need it. */
  audioGateway: AudioGatewayConfig | null = null;
  /** Lent the same way: speech already rendered plays as a file (see src/media/prompt-cache.ts). */
  prompts: PromptCache | null = null;
  /** Lent the same way: which media server each conference room lives on (conference-rooms.ts). */
  rooms: ConferenceRooms | null = null;

  constructor(
    readonly id: string,
    readonly from: string,
    readonly to: string,
    readonly ep: Endpoint,
    private readonly dialog: Srf.Dialog,
    readonly log: Logger,
  ) {
    this.ended = new Promise((resolve) => { this.#resolveEnded = resolve; });
    ep.on('dtmf', ({ dtmf }) => this.#key(dtmf));
    dialog.on('destroy', () => this.#end({ cause: 'normal', by: 'remote' }));
    // A transfer the far end asks for goes to whoever listens (a bridge whose call has a refer_url), else it is
    // declined. Unheard, drachtio-srf answers 200, which tells a PBX or phone its transfer is under way when nothing
    // will happen.
    dialog.on('refer', (req: ReferRequest, res: ReferResponse) => {
      const asked = transferAsked(dialog, req, res, log);
      if (!asked) return;
      const listeners = [...this.#listeners.transfer];
      if (listeners.length === 0) {
        log.info('REFER declined (603): no transfer is offered on this leg now');
        asked.decline();
      }
      for (const listener of listeners) listener(asked);
    });
    // FreeSWITCH dropping the channel (shutdown, media timeout) ends the call for the far end too. fsmrf reports
    // no reason only when the channel's own event socket closed: FreeSWITCH is gone.
    ep.on('destroy', (e?: { reason?: string }) => {
      log.debug({ q850: e?.reason ?? null }, 'FreeSWITCH ended the channel');
      this.#end({ cause: e?.reason ? causeOfQ850(e.reason) : 'media-server-lost', by: 'local' });
    });
    // A far end can hang up while its media is still being connected (between its 200 OK and this leg): its BYE
    // was answered then, and the 'destroy' above came too early to be heard.
    if (!isUp(dialog)) this.#end({ cause: 'normal', by: 'remote' });
    // Callers whose SDP has no telephone-event send keys in-band: let FreeSWITCH detect them.
    if (!/telephone-event/i.test(dialog.remote?.sdp ?? '')) void quietly(this, 'in-band DTMF detection', () => ep.execute('spandsp_start_dtmf'));
  }

  get isEnded(): boolean { return this.#endInfo !== null; }

  #key(dtmf: string): void {
    this.log.debug({ dtmf }, 'dtmf');
    for (const listener of [...this.#listeners.dtmf]) listener(dtmf);
    this.digits.push(dtmf);
  }

  /**
   * How the far end sends keys, when its carrier says (docs/carriers.md): 'info' takes keys from its SIP INFO
   * requests; 'inband' listens for tones even when its SDP offers telephone-event. Without this, or with 'rfc2833',
   * keys are RFC 2833 events, or tones when the SDP has no telephone-event.
   */
  keysBy(mode: DtmfMode): void {
    if (mode === 'inband' && /telephone-event/i.test(this.dialog.remote?.sdp ?? '')) {
      void quietly(this, 'in-band DTMF detection', () => this.ep.execute('spandsp_start_dtmf'));
    }
    if (mode !== 'info') return;
    this.dialog.on('info', (req: Srf.SrfRequest, res: Srf.SrfResponse) => {
      const key = keyOfInfo(req.get('Content-Type'), req.body as string | undefined);
      res.send(200);
      if (key !== null) this.#key(key);
    });
  }

  /** The far end's dialog: drachtio-server keeps it after this process dies, so a successor can BYE inside it. */
  get orphanRef(): string { return dialogIdOf(this.dialog); }

  on<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void { (this.#listeners[event] as Set<LegEvents[E]>).add(listener); }
  off<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void { (this.#listeners[event] as Set<LegEvents[E]>).delete(listener); }

  async step(step: MediaStep): Promise<void> {
    if (this.isEnded) return;
    const stopped = this.#untilMediaStop();
    let rendered: ReturnType<PromptCache['take']> = null;
    try {
      await this.settleBreak();
      if (stopped.fired) return;
      // Speech already rendered plays as a file: no synthesis before the first sound.
      rendered = step.kind === 'speak' ? this.prompts?.take(step.args.text, step.args.voice) ?? null : null;
      const file = rendered?.file;
      const op = file ? () => this.ep.play(file)
        : step.kind === 'speak' ? () => this.ep.speak(step.args) : () => this.ep.play(step.file);
      await Promise.race([quietly(this, 'playback', op), this.ended, stopped.promise]);
    } finally {
      stopped.release();
      rendered?.release();
    }
  }

  /** Breaks what the channel plays or records (a key pressed during a prompt, stopMedia). */
  interrupt(): Promise<void> {
    if (this.isEnded) return Promise.resolve();
    const sent = quietly(this, 'uuid_break', () => breakMedia(this.ep)).then(() => undefined);
    this.#breaking = sent;
    return sent;
  }

  /**
   * Before the next media operation: a break that reached the channel when nothing was playing stays set
   * (FreeSWITCH's CF_BREAK) and would cut that operation at once. Waits for the break to land, then lets a
   * 20 ms silence take it. Costs nothing when no break was sent since the last operation.
   */
  async settleBreak(): Promise<void> {
    const breaking = this.#breaking;
    if (!breaking) return;
    this.#breaking = null;
    await breaking;
    if (!this.isEnded) await quietly(this, 'break settle', () => settleBreakOn(this.ep));
  }

  onMediaStop(stop: () => void): () => void {
    this.#mediaStops.add(stop);
    return () => { this.#mediaStops.delete(stop); };
  }

  async stopMedia(): Promise<void> {
    if (this.isEnded) return;
    for (const stop of [...this.#mediaStops]) stop();
    await this.interrupt();
  }

  /** Resolves when stopMedia() is called; `release` once the operation is over. */
  #untilMediaStop(): { promise: Promise<void>; readonly fired: boolean; release: () => void } {
    let fired = false;
    let stop!: () => void;
    const promise = new Promise<void>((resolve) => { stop = () => { fired = true; resolve(); }; });
    return { promise, get fired() { return fired; }, release: this.onMediaStop(stop) };
  }

  /**
   * FreeSWITCH's send_dtmf queues the keys (and the w/W waits) on the channel's RTP and returns at once: the wait
   * for them to go out is sendDigitsMs, cut short by the leg's end.
   */
  async sendDigits(digits: string): Promise<void> {
    if (this.isEnded) return;
    await quietly(this, 'send_dtmf', () => this.ep.execute('send_dtmf', digits));
    await settledWithin(this.ended, sendDigitsMs(digits));
  }

  async say(text: string, opts: SayOptions): Promise<void> {
    const step = sayStep(text, opts);
    if (step) await this.step(step);
  }

  async play(media: LocalMedia): Promise<void> {
    const file = playTarget(media);
    if (file) await this.step({ kind: 'file', file });
    else this.log.warn({ file: media.file }, 'play: not a plain local file path; skipped');
  }

  async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const stopped = this.#untilMediaStop();
    await Promise.race([new Promise((r) => { timer = setTimeout(r, ms); }), this.ended, stopped.promise]);
    stopped.release();
    clearTimeout(timer);
  }

  refer(target: string): Promise<ReferOutcome> { return referOut(this.dialog, target, this.ended, this.log); }

  ringback(tone: RingTone): Promise<void> { return this.step({ kind: 'file', file: ringbackFile(tone) }); }

  collectDigits(opts: CollectOptions): Promise<CollectResult> { return collectDigits(this, opts); }
  record(opts: RecordOptions): Promise<RecordResult> { return record(this, opts); }

  async startCallRecording(opts: CallRecordingOptions): Promise<CallRecording> {
    const rec = await startCallRecording(this, opts);
    this.#recordings.add(rec);
    return rec;
  }

  joinConference(room: string, opts: ConferenceJoinOptions): Promise<ConferenceMember> {
    this.#unbridge?.();
    return this.rooms ? this.rooms.join(this, room, opts, () => this.hangup()) : joinConference(this, room, opts);
  }

  async bridge(other: CallLeg): Promise<void> {
    if (this.isEnded || other.isEnded) return;
    if (!(other instanceof DrachtioLeg)) throw new Error('drachtio: can only bridge legs of the same engine');
    for (const leg of [this, other]) leg.#unbridge?.();
    await this.ep.bridge(other.ep);
    await new Promise<void>((resolve) => {
      const unbridge = () => {
        for (const leg of [this, other]) if (leg.#unbridge === unbridge) leg.#unbridge = null;
        resolve();
      };
      this.#unbridge = unbridge;
      other.#unbridge = unbridge;
      void Promise.race([this.ended, other.ended]).then(unbridge);
    });
  }

  async openAudio(opts: AudioTapOptions): Promise<AudioTap> {
    if (!this.audioGateway) throw new EngineError('media streams are not available on this leg');
    // The stream's endpoint takes the caller's side of any bridge.
    if (opts.mode === 'bidirectional') this.#unbridge?.();
    return openDrachtioAudio(this, this.audioGateway, opts);
  }

  async hangup(): Promise<void> {
    this.#end({ cause: 'normal', by: 'local' });
    await this.#released;
  }

  /**
   * The engine lost the server one side of this leg lived on (FreeSWITCH: its media; drachtio-server: its
   * dialog). Ends the leg now, releasing what is still reachable: a BYE to the far end while drachtio is up, the
   * FreeSWITCH channel while FreeSWITCH is.
   */
  /** Whether media this leg depends on passes `on` (the engine asks which legs a lost media server carried). */
  usesMedia(on: (ep: Endpoint) => boolean): boolean { return on(this.ep); }

  lost(cause: EngineLostCause): void {
    this.#end({ cause, by: 'local' });
  }

  /** Records why the leg ended (first reason wins), tells listeners, and releases SIP and media. */
  #end(info: HangupInfo): void {
    if (this.#endInfo) return;
    this.#endInfo = info;
    this.log.debug({ cause: info.cause, by: info.by }, 'leg ended');
    this.#unbridge?.();
    this.#released = this.#release(info);
    this.#resolveEnded(info);
    for (const listener of [...this.#listeners.hangup]) listener(info);
  }

  async #release(info: HangupInfo): Promise<void> {
    await Promise.allSettled([...this.#recordings].map((r) => r.stop()));
    // With the drachtio connection gone the BYE fails at once: the caller's dialog died with drachtio-server.
    const farEnd = info.by === 'local' ? bye(this.dialog) : Promise.resolve();
    // endpoint.destroy() resolves on FreeSWITCH's BYE, which a dead media server never sends (and which cannot
    // reach us without drachtio): bounded wait.
    const media = this.ep.destroy().catch(() => undefined);
    await settledWithin(Promise.all([farEnd, media]), TEARDOWN_MS);
    if (isEngineLost(info.cause)) endMediaDialog(this.ep);
  }
}
