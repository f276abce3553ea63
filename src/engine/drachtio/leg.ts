// An answered call with media: a SIP dialog towards the far end and a FreeSWITCH endpoint holding the audio.
// Either side going away ends the leg; ending the leg releases both (and with them bridges and recordings).
import type Srf from 'drachtio-srf';
import type { Logger } from 'pino';
import type {
  CallLeg, CallRecording, CallRecordingOptions, CollectOptions, CollectResult, HangupInfo, LegEvents,
  RecordOptions, RecordResult, SayOptions,
} from '../port.js';
import { causeOfQ850 } from './causes.js';
import { collectDigits } from './collect.js';
import { DigitBuffer } from './digits.js';
import type { Endpoint } from './fsmrf.js';
import { quietly, type MediaContext } from './media-context.js';
import { playTarget, speakArgs, type MediaStep } from './media.js';
import { record } from './record.js';
import { startCallRecording } from './recording.js';

type Listeners = { [E in keyof LegEvents]: Set<LegEvents[E]> };

const TEARDOWN_MS = 3_000;

export class DrachtioLeg implements CallLeg, MediaContext {
  readonly digits = new DigitBuffer();
  readonly ended: Promise<HangupInfo>;
  readonly #listeners: Listeners = { dtmf: new Set(), hangup: new Set() };
  readonly #recordings = new Set<CallRecording>();
  #resolveEnded!: (info: HangupInfo) => void;
  #endInfo: HangupInfo | null = null;
  #released: Promise<void> | null = null;
  #unbridge: (() => void) | null = null;

  constructor(
    readonly id: string,
    readonly from: string,
    readonly to: string,
    readonly ep: Endpoint,
    private readonly dialog: Srf.Dialog,
    readonly log: Logger,
  ) {
    this.ended = new Promise((resolve) => { this.#resolveEnded = resolve; });
    ep.on('dtmf', ({ dtmf }) => {
      log.debug({ dtmf }, 'dtmf');
      for (const listener of [...this.#listeners.dtmf]) listener(dtmf);
      this.digits.push(dtmf);
    });
    dialog.on('destroy', () => this.#end({ cause: 'normal', by: 'remote' }));
    // FreeSWITCH dropping the channel (restart, media timeout) ends the call for the far end too.
    ep.on('destroy', (e?: { reason?: string }) => this.#end({ cause: e?.reason ? causeOfQ850(e.reason) : 'failed', by: 'local' }));
    // Callers whose SDP has no telephone-event send keys in-band: let FreeSWITCH detect them.
    if (!/telephone-event/i.test(dialog.remote?.sdp ?? '')) void quietly(this, 'in-band DTMF detection', () => ep.execute('spandsp_start_dtmf'));
  }

  get isEnded(): boolean { return this.#endInfo !== null; }

  on<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void { (this.#listeners[event] as Set<LegEvents[E]>).add(listener); }
  off<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void { (this.#listeners[event] as Set<LegEvents[E]>).delete(listener); }

  async step(step: MediaStep): Promise<void> {
    if (this.isEnded) return;
    const op = step.kind === 'speak' ? () => this.ep.speak(step.args) : () => this.ep.play(step.file);
    await Promise.race([quietly(this, 'playback', op), this.ended]);
  }

  async interrupt(): Promise<void> {
    if (!this.isEnded) await quietly(this, 'uuid_break', () => this.ep.api('uuid_break', `${this.ep.uuid} all`));
  }

  say(text: string, opts: SayOptions): Promise<void> { return this.step({ kind: 'speak', args: speakArgs(text, opts.voice) }); }

  async play(url: string): Promise<void> {
    const file = playTarget(url);
    if (file) await this.step({ kind: 'file', file });
    else this.log.warn({ url }, 'play: unsupported URL scheme; skipped');
  }

  async pause(ms: number): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([new Promise((r) => { timer = setTimeout(r, ms); }), this.ended]);
    clearTimeout(timer);
  }

  collectDigits(opts: CollectOptions): Promise<CollectResult> { return collectDigits(this, opts); }
  record(opts: RecordOptions): Promise<RecordResult> { return record(this, opts); }

  async startCallRecording(opts: CallRecordingOptions): Promise<CallRecording> {
    const rec = await startCallRecording(this, opts);
    this.#recordings.add(rec);
    return rec;
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

  async hangup(): Promise<void> {
    this.#end({ cause: 'normal', by: 'local' });
    await this.#released;
  }

  /** Records why the leg ended (first reason wins), tells listeners, and releases SIP and media. */
  #end(info: HangupInfo): void {
    if (this.#endInfo) return;
    this.#endInfo = info;
    this.#unbridge?.();
    this.#released = this.#release(info);
    this.#resolveEnded(info);
    for (const listener of [...this.#listeners.hangup]) listener(info);
  }

  async #release(info: HangupInfo): Promise<void> {
    await Promise.allSettled([...this.#recordings].map((r) => r.stop()));
    const bye = info.by === 'local' ? new Promise<void>((resolve) => {
      try { this.dialog.destroy(undefined, () => resolve()); } catch { resolve(); }
    }) : Promise.resolve();
    // endpoint.destroy() resolves on FreeSWITCH's BYE, which a dead media server never sends: bounded wait.
    const media = this.ep.destroy().catch(() => undefined);
    await Promise.race([Promise.all([bye, media]), new Promise((r) => setTimeout(r, TEARDOWN_MS).unref())]);
  }
}
