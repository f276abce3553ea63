// The simulated far end of a call: a script of what the person does, and the SimulatedCall handle tests use
// to watch and steer them.
import type { HangupInfo } from '../port.js';
import type { Line } from './line.js';
import { BARGE_IN_MS, GATHER_REACTION_MS, KEY_INTERVAL_MS } from './media-timing.js';
import type { TranscriptEvent, TranscriptListener } from './transcript.js';
import { askTransfer, type TransferResult } from './transfer.js';
import type { FarEndAudio } from './far-end-audio.js';

/** What a person does once the call is connected. */
export interface InCallScript {
  /** Hangs up this long after answer (default: stays until the platform hangs up). */
  hangupAfterMs?: number;
  /** Keys typed at fixed times after answer; multi-key strings are typed 50 ms apart. */
  digits?: Array<{ atMs: number; keys: string }>;
  /** One entry per collectDigits: typed 100 ms after its prompts finish, 50 ms per key ('' = no answer). */
  gatherInput?: string[];
  /**
   * One entry per speech <Gather> (each time the platform starts listening): said 100 ms after its prompts finish,
   * or, with bargeIn, 300 ms after listening starts, over the prompts ('' = says nothing).
   */
  speechInput?: Array<string | { text: string; bargeIn: true }>;
  /** During record(): talks this long, then goes silent (default 3000). */
  speakMs?: number;
  /** What it sounds like to a media tap and to answering-machine detection (default: a steady 440 Hz tone). */
  audio?: FarEndAudio;
}

/** Someone calling in (simulateInbound). */
export interface CallerScript extends InCallScript {
  /** Gives up this long after the call arrives if it is still unanswered (default: hangupAfterMs, else never; null: never). */
  hangupBeforeAnswerAfterMs?: number | null;
}

/** Someone the platform calls (originate). */
export interface PartyScript extends InCallScript {
  behavior: 'answer' | 'busy' | 'no-answer' | 'fail' | 'reject';
  /** When the final response comes (default 1000). 'answer' and 'reject' ring first, at 100 ms. */
  ringMs?: number;
  /**
   * 'answer' waits for this too (ringing on meanwhile, within the request's timeout): a test holds a party until
   * something has happened, rather than betting on simulated time against real webhooks.
   */
  answerAfter?: Promise<unknown>;
}

/** The test's view of, and control over, the far end of one simulated call. */
export interface SimulatedCall {
  /** The same id as the platform's IncomingCall/CallLeg for this call. */
  readonly id: string;
  readonly transcript: readonly TranscriptEvent[];
  /** Streams events as they happen; returns the unsubscribe function. */
  onEvent(listener: TranscriptListener): () => void;
  readonly ended: Promise<HangupInfo>;
  readonly isEnded: boolean;
  /** Types keys: the first now, the rest 50 ms apart. Ignored before answer and after hangup. */
  press(keys: string): void;
  /** Says words, heard by a speech <Gather> listening now. Ignored before answer and after hangup. */
  say(text: string): void;
  /** Hangs up: before answer a caller abandons (caller-hangup), a called party declines (rejected). */
  hangup(): void;
  /** Asks for a blind transfer to `target` (SIP REFER); resolves with the platform's answer and final report. */
  transfer(target: string, referredBy?: string): Promise<TransferResult>;
}

export class RemoteParty implements SimulatedCall {
  #gathers = 0;
  #listens = 0;
  /** Words to say once the prompts of the speech <Gather> listening now finish. */
  #sayAfterPrompts: string | null = null;
  #giveUp: ReturnType<Line['schedule']>;

  constructor(private readonly line: Line, private readonly script: InCallScript) {
    line.on('answered', () => this.#connected());
    line.on('awaiting-input', () => this.#answerGather());
    line.on('listening', () => this.#answerListening());
  }

  get id(): string { return this.line.id; }
  get transcript(): readonly TranscriptEvent[] { return this.line.transcript.events; }
  get ended(): Promise<HangupInfo> { return this.line.ended; }
  get isEnded(): boolean { return this.line.isEnded; }

  onEvent(listener: TranscriptListener): () => void { return this.line.transcript.onEvent(listener); }

  press(keys: string): void {
    [...keys].forEach((key, i) => {
      if (i === 0) this.line.remoteDigit(key);
      else this.line.schedule(i * KEY_INTERVAL_MS, () => this.line.remoteDigit(key));
    });
  }

  say(text: string): void { this.line.say(text); }

  hangup(): void { this.line.remoteHangup(); }

  transfer(target: string, referredBy?: string): Promise<TransferResult> { return askTransfer(this.line, target, referredBy ?? null); }

  /** Hangs up if nobody has answered within `ms`. */
  giveUpAfter(ms: number | undefined): void {
    if (ms !== undefined) this.#giveUp = this.line.schedule(ms, () => this.hangup());
  }

  #connected(): void {
    this.line.cancel(this.#giveUp);
    const { hangupAfterMs, digits = [] } = this.script;
    if (hangupAfterMs !== undefined) this.line.schedule(hangupAfterMs, () => this.hangup());
    for (const { atMs, keys } of digits) this.line.schedule(atMs, () => this.press(keys));
  }

  #answerGather(): void {
    const said = this.#sayAfterPrompts;
    this.#sayAfterPrompts = null;
    if (said) this.line.schedule(GATHER_REACTION_MS, () => this.say(said));
    const input = this.script.gatherInput?.[this.#gathers++];
    if (input) this.line.schedule(GATHER_REACTION_MS, () => this.press(input));
  }

  #answerListening(): void {
    const input = this.script.speechInput?.[this.#listens++];
    if (typeof input === 'object') this.line.schedule(BARGE_IN_MS, () => this.say(input.text));
    else this.#sayAfterPrompts = input || null;
  }
}
