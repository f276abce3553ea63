// One simulated call: the state shared by the platform's side (IncomingCall/CallLeg) and the simulated far
// end (SimulatedCall). It owns every timer the call uses, so ending it can never leave work on the clock.
import { EventEmitter } from 'node:events';
import type { Clock, TimerHandle } from '../../clock.js';
import type { HangupInfo, TransferAsked } from '../port.js';
import { Transcript } from './transcript.js';
import type { Media } from './media-timing.js';
import type { SandboxRooms } from './conference.js';
import type { FarEndAudio } from './far-end-audio.js';
import { FarEndSpeech } from './spoken-text.js';

export type Direction = 'inbound' | 'outbound';

/** Failures a test asks the sandbox to produce, shared by every call of one engine. */
export interface SandboxFaults {
  /** When set, recording pause/resume/stop are refused the way FreeSWITCH refuses a command. */
  recordingCommand: { status: number; body: string } | null;
}

export interface LineInit {
  id: string;
  from: string;
  to: string;
  direction: Direction;
  /** How long the far end talks when recorded. */
  speakMs: number;
  /** What the far end sounds like to a media tap; null: a steady tone. */
  audio: FarEndAudio | null;
}

interface LineEvents {
  answered: [];
  digit: [digit: string];
  /** A digit collection finished its prompts: the cue for a scripted caller to type. */
  'awaiting-input': [];
  /** The platform began listening to what the far end says (a speech <Gather>): the cue for a scripted caller to speak. */
  listening: [];
  /** The far end asks for a blind transfer (SIP REFER). */
  'transfer-asked': [asked: TransferAsked];
  ended: [info: HangupInfo];
}

export class Line {
  readonly id: string;
  readonly from: string;
  readonly to: string;
  readonly direction: Direction;
  readonly speakMs: number;
  readonly audio: FarEndAudio | null;
  readonly transcript: Transcript;
  /** What the far end is saying now, heard on the call's audio tap. */
  readonly speech = new FarEndSpeech();
  readonly ended: Promise<HangupInfo>;
  readonly #startedAt: number;
  readonly #events = new EventEmitter<LineEvents>();
  readonly #timers = new Map<number, TimerHandle>();
  /** Run synchronously before the hangup is announced, so files are final and the transcript in order. */
  readonly #endHooks = new Set<(info: HangupInfo) => void>();
  readonly #abort = new AbortController();
  #mediaStop = new AbortController();
  #earlyMedia = false;
  #state: 'setup' | 'answered' | 'ended' = 'setup';
  #rang = false;
  #resolveEnded!: (info: HangupInfo) => void;

  constructor(readonly clock: Clock, init: LineInit, readonly faults: SandboxFaults, readonly rooms: SandboxRooms) {
    ({ id: this.id, from: this.from, to: this.to, direction: this.direction, speakMs: this.speakMs, audio: this.audio } = init);
    this.#startedAt = clock.now();
    this.transcript = new Transcript(() => clock.now() - this.#startedAt);
    this.ended = new Promise((resolve) => { this.#resolveEnded = resolve; });
  }

  get isAnswered(): boolean { return this.#state === 'answered'; }
  get isEnded(): boolean { return this.#state === 'ended'; }
  /** Aborted when the call ends: lets waits finish early. */
  get signal(): AbortSignal { return this.#abort.signal; }

  on<E extends keyof LineEvents>(event: E, listener: (...args: LineEvents[E]) => void): () => void {
    this.#events.on(event, listener as never);
    return () => { this.#events.off(event, listener as never); };
  }

  onEnd(hook: (info: HangupInfo) => void): () => void {
    this.#endHooks.add(hook);
    return () => { this.#endHooks.delete(hook); };
  }

  ring(): void {
    if (this.#state !== 'setup' || this.#rang) return;
    this.#rang = true;
    this.transcript.add({ type: 'ringing' });
  }

  answer(): boolean {
    if (this.#state !== 'setup') return false;
    this.#state = 'answered';
    this.transcript.add({ type: 'answered' });
    this.#events.emit('answered');
    return true;
  }

  /** The far end pressed a key; there is no media path to carry it before answer. */
  remoteDigit(digit: string): void {
    if (this.#state !== 'answered') return;
    this.transcript.add({ type: 'pressed', digit });
    this.#events.emit('digit', digit);
  }

  awaitingInput(): void { this.#events.emit('awaiting-input'); }

  listening(): void { this.#events.emit('listening'); }

  /** The far end says `text` (ignored before answer and after hangup). */
  say(text: string): void {
    if (this.#state !== 'answered') return;
    this.transcript.add({ type: 'said', text });
    this.speech.say(text);
  }

  /** The far end asks for a transfer: false when nobody on the platform's side can hear it (before answer, after the end). */
  transferAsked(asked: TransferAsked): boolean {
    return this.#state === 'answered' && this.#events.emit('transfer-asked', asked);
  }

  /** The far end hung up: before answer a caller abandons, a called party declines. */
  remoteHangup(): void {
    if (this.#state === 'answered') this.end({ cause: 'normal', by: 'remote' });
    else if (this.direction === 'inbound') this.end({ cause: 'caller-hangup', by: 'remote' });
    else this.end({ cause: 'rejected', by: 'remote', sipStatus: 603 });
  }

  end(info: HangupInfo): boolean {
    if (this.#state === 'ended') return false;
    this.#state = 'ended';
    for (const hook of [...this.#endHooks]) hook(info);
    this.#endHooks.clear();
    this.transcript.add({ type: 'hangup', ...info });
    for (const handle of this.#timers.values()) this.clock.clearTimeout(handle);
    this.#timers.clear();
    this.#abort.abort();
    this.#resolveEnded(info);
    this.#events.emit('ended', info);
    this.#events.removeAllListeners();
    return true;
  }

  /** A timer that dies with the call. */
  schedule(ms: number, fn: () => void): TimerHandle | undefined {
    if (this.isEnded) return undefined;
    const handle = this.clock.setTimeout(() => { this.#timers.delete(handle.id); fn(); }, ms);
    this.#timers.set(handle.id, handle);
    return handle;
  }

  cancel(handle: TimerHandle | undefined): void {
    if (!handle) return;
    this.clock.clearTimeout(handle);
    this.#timers.delete(handle.id);
  }

  /** Aborted by stopMedia(): the media operation under way (any sleep) ends; later ones start afresh. */
  get mediaStop(): AbortSignal { return this.#mediaStop.signal; }

  stopMedia(): void {
    this.#mediaStop.abort();
    this.#mediaStop = new AbortController();
  }

  /** Resolves true after `ms`, or false as soon as the call ends, `stop` aborts or the media is stopped. */
  sleep(ms: number, stop?: AbortSignal): Promise<boolean> {
    const stops = [this.signal, this.mediaStop, ...(stop ? [stop] : [])];
    if (this.isEnded || stops.some((s) => s.aborted)) return Promise.resolve(false);
    return new Promise((resolve) => {
      const finish = (elapsed: boolean) => {
        this.cancel(timer);
        for (const s of stops) s.removeEventListener('abort', interrupted);
        resolve(elapsed);
      };
      const interrupted = () => finish(false);
      const timer = this.schedule(ms, () => finish(true));
      for (const s of stops) s.addEventListener('abort', interrupted);
    });
  }

  /**
   * Early media: plays `media` to a caller not answered yet (the first time, after a 183 Session Progress); false
   * when cut short, by `stop`, the answer's stopMedia or the end.
   */
  performEarly(media: Media, stop: AbortSignal): Promise<boolean> {
    if (this.#state !== 'setup' || stop.aborted) return Promise.resolve(false);
    if (!this.#earlyMedia) {
      this.#earlyMedia = true;
      this.transcript.add({ type: 'early-media' });
    }
    this.transcript.add(media.heard);
    return this.sleep(media.ms, stop);
  }

  /** Plays media to the far end; false when cut short. Only an answered call has a media path. */
  perform(media: Media, stop?: AbortSignal): Promise<boolean> {
    if (this.#state !== 'answered' || stop?.aborted) return Promise.resolve(false);
    this.transcript.add(media.heard);
    return this.sleep(media.ms, stop);
  }
}
