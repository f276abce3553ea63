// The platform's handle on an answered simulated call. Media and digit logic live in their own modules; this
// class wires them to one Line and adds events, bridging and hangup.
import { EngineError } from '../port.js';
import type {
  AudioTap, AudioTapOptions, CallLeg, CallRecording, CallRecordingOptions, CollectOptions, CollectResult, ConferenceJoinOptions, ConferenceMember,
  HangupInfo, LegEvents, LocalMedia, ReferOutcome,
  RecordOptions, RecordResult, SayOptions,
} from '../port.js';
import { openSandboxAudio } from './audio-tap.js';
import { collectDigits } from './collect.js';
import { DigitQueue } from './digits.js';
import type { Line } from './line.js';
import { keysMedia, pauseMedia, playMedia, ringbackMedia, sayMedia } from './media-timing.js';
import type { RingTone } from '../../markup/ring-tones.js';
import { record } from './record.js';
import { startCallRecording } from './recording.js';

/** How long the simulated far end takes from accepting a REFER to reporting the transfer done. */
const REFER_REPORT_MS = 500;

type Listeners = { [E in keyof LegEvents]: Set<LegEvents[E]> };

export class SandboxLeg implements CallLeg {
  readonly orphanRef = null;
  readonly #line: Line;
  readonly #keys: DigitQueue;
  readonly #listeners: Listeners = { dtmf: new Set(), hangup: new Set(), transfer: new Set() };
  /** Ends the current bridge, if any (a leg is in at most one). */
  #unbridge: (() => void) | null = null;

  /** Create before the line is answered, so no key pressed at answer time is lost. */
  constructor(line: Line) {
    this.#line = line;
    this.#keys = new DigitQueue(line);
    line.on('digit', (digit) => {
      for (const listener of [...this.#listeners.dtmf]) listener(digit);
      this.#keys.push(digit);
    });
    line.on('ended', (info) => {
      for (const listener of [...this.#listeners.hangup]) listener(info);
    });
    line.on('transfer-asked', (asked) => {
      const listeners = [...this.#listeners.transfer];
      if (listeners.length === 0) asked.decline();
      for (const listener of listeners) listener(asked);
    });
  }

  get id(): string { return this.#line.id; }
  get from(): string { return this.#line.from; }
  get to(): string { return this.#line.to; }
  get ended(): Promise<HangupInfo> { return this.#line.ended; }
  get isEnded(): boolean { return this.#line.isEnded; }

  on<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void {
    (this.#listeners[event] as Set<LegEvents[E]>).add(listener);
  }

  off<E extends keyof LegEvents>(event: E, listener: LegEvents[E]): void {
    (this.#listeners[event] as Set<LegEvents[E]>).delete(listener);
  }

  async say(text: string, opts: SayOptions): Promise<void> { await this.#line.perform(sayMedia(text, opts)); }
  async play(media: LocalMedia): Promise<void> { await this.#line.perform(playMedia(media.source)); }
  async pause(ms: number): Promise<void> { await this.#line.perform(pauseMedia(ms)); }
  /** The simulated far end accepts every transfer and reports it done a moment later. */
  async refer(target: string): Promise<ReferOutcome> {
    if (this.isEnded) return { referStatus: null, notifyStatus: null };
    this.#line.transcript.add({ type: 'referred', to: target });
    const reported = await this.#line.sleep(REFER_REPORT_MS);
    return { referStatus: 202, notifyStatus: reported ? 200 : null };
  }

  async ringback(tone: RingTone): Promise<void> { await this.#line.perform(ringbackMedia(tone)); }

  async sendDigits(digits: string): Promise<void> { await this.#line.perform(keysMedia(digits)); }

  collectDigits(opts: CollectOptions): Promise<CollectResult> { return collectDigits(this.#line, this.#keys, opts); }
  record(opts: RecordOptions): Promise<RecordResult> { return record(this.#line, this.#keys, opts); }

  async stopMedia(): Promise<void> { this.#line.stopMedia(); }

  async startCallRecording(opts: CallRecordingOptions): Promise<CallRecording> {
    return startCallRecording(this.#line, opts);
  }

  async joinConference(room: string, opts: ConferenceJoinOptions): Promise<ConferenceMember> {
    this.#unbridge?.();
    return this.#line.rooms.join(this.#line, room, opts);
  }

  async bridge(other: CallLeg): Promise<void> {
    if (this.isEnded || other.isEnded) return;
    const peer = other instanceof SandboxLeg ? other : undefined;
    const legs = peer ? [this, peer] : [this];
    for (const leg of legs) leg.#unbridge?.();
    this.#line.transcript.add({ type: 'bridged', to: other.id });
    if (peer) peer.#line.transcript.add({ type: 'bridged', to: this.id });
    await new Promise<void>((resolve) => {
      const unbridge = () => {
        for (const leg of legs) if (leg.#unbridge === unbridge) leg.#unbridge = null;
        resolve();
      };
      for (const leg of legs) leg.#unbridge = unbridge;
      void Promise.race([this.ended, other.ended]).then(unbridge);
    });
  }

  async openAudio(opts: AudioTapOptions): Promise<AudioTap> {
    if (this.isEnded) throw new EngineError('the leg has ended');
    // As on the real engine, a bidirectional stream takes the caller's audio out of a bridge.
    if (opts.mode === 'bidirectional') this.#unbridge?.();
    return openSandboxAudio(this.#line, opts);
  }

  async hangup(): Promise<void> { this.#line.end({ cause: 'normal', by: 'local' }); }
}
