// Answering-machine detection on the audio of an answered outbound call (docs/speech.md, "Answering-machine
// detection"), frame by frame, as Twilio's AMD reads an answer: a person says a short greeting and waits ("Hello?",
// then silence); a machine talks on ("Hi, you've reached…") and usually ends with a beep; a fax machine answers with
// its 2100 Hz tone. The settings are Twilio's MachineDetection* parameters, with its defaults.
import { ToneTracker, type ToneRun } from './tone-detector.js';
import { VoiceActivity } from './voice-activity.js';

export const ANSWERED_BY = ['human', 'machine_start', 'machine_end_beep', 'machine_end_silence', 'machine_end_other', 'fax', 'unknown'] as const;
export type AnsweredBy = (typeof ANSWERED_BY)[number];

export const MACHINE_DETECTION_MODES = ['enable', 'detect_message_end'] as const;

export interface MachineDetectionSettings {
  /** 'enable': decide human, machine (at its start), fax or unknown; 'detect_message_end': for a machine, wait for the end of its greeting. */
  mode: (typeof MACHINE_DETECTION_MODES)[number];
  /** The longest the detection runs; then unknown, or machine_end_other once a machine was found. */
  timeoutMs: number;
  /** Speech lasting this long (pauses shorter than speechEndThresholdMs included) is a machine's greeting. */
  speechThresholdMs: number;
  /** Silence this long after speech ends it: a person's greeting before speechThresholdMs, or a machine's message. */
  speechEndThresholdMs: number;
  /** No speech at all for this long from the answer: unknown. */
  silenceTimeoutMs: number;
}

export const MACHINE_DETECTION_DEFAULTS: Omit<MachineDetectionSettings, 'mode'> = {
  timeoutMs: 30_000, speechThresholdMs: 2_400, speechEndThresholdMs: 1_200, silenceTimeoutMs: 5_000,
};

export interface Detection {
  answeredBy: AnsweredBy;
  /** When it was decided, in ms of audio from the answer. */
  atMs: number;
  /** Whether detection is over (every decision but machine_start in detect_message_end mode). */
  final: boolean;
}

const FRAME_MS = 20;
/** A tone this long is a beep. */
const BEEP_MS = 100;
/** A fax machine's answer tone (CED, 2100 Hz for 2.6 to 4 s) and a calling fax's CNG (1100 Hz, 0.5 s bursts). */
const FAX_TONES = [{ hz: 2100, ms: 700 }, { hz: 1100, ms: 400 }] as const;
const FAX_TOLERANCE_HZ = 50;

const isFax = (run: ToneRun) => FAX_TONES.some((f) => Math.abs(run.hz - f.hz) <= FAX_TOLERANCE_HZ && run.ms >= f.ms);

/** Feed it the answer's audio in 20 ms frames of 8 kHz samples; it says what answered, once or twice. */
export class MachineDetector {
  readonly #s: MachineDetectionSettings;
  readonly #voice = new VoiceActivity();
  readonly #tones = new ToneTracker();
  #atMs = 0;
  #speechStartMs: number | null = null;
  /** The end of the last frame of speech or tone. */
  #activeUntilMs = 0;
  #machine = false;
  #done = false;

  constructor(settings: MachineDetectionSettings) {
    this.#s = settings;
  }

  get done(): boolean {
    return this.#done;
  }

  /** One frame (160 samples); the decisions it brings (none once done). */
  push(frame: Float32Array): Detection[] {
    if (this.#done) return [];
    const startMs = this.#atMs;
    this.#atMs += FRAME_MS;
    const now = this.#atMs;
    const ended = this.#tones.push(frame, startMs, FRAME_MS);
    const tone = this.#tones.current;
    if (tone && isFax(tone)) return this.#decide('fax', now);
    // A beep is over with the first frame after it: the message (or the caller's turn to speak) starts now.
    if (ended && ended.ms >= BEEP_MS && !isFax(ended)) return this.#decide(this.#s.mode === 'enable' ? 'machine_start' : 'machine_end_beep', now);
    if (tone) this.#activeUntilMs = now;
    else if (this.#voice.push(frame)) {
      this.#speechStartMs ??= startMs;
      this.#activeUntilMs = now;
    }
    return this.#afterFrame(now);
  }

  #afterFrame(now: number): Detection[] {
    const s = this.#s;
    const silentMs = now - this.#activeUntilMs;
    if (this.#machine) {
      if (silentMs >= s.speechEndThresholdMs) return this.#decide('machine_end_silence', now);
      return now >= s.timeoutMs ? this.#decide('machine_end_other', now) : [];
    }
    if (this.#speechStartMs === null) return now >= Math.min(s.silenceTimeoutMs, s.timeoutMs) ? this.#decide('unknown', now) : [];
    if (silentMs >= s.speechEndThresholdMs) return this.#decide('human', now);
    if (this.#activeUntilMs - this.#speechStartMs >= s.speechThresholdMs) return this.#decide('machine_start', now);
    return now >= s.timeoutMs ? this.#decide('unknown', now) : [];
  }

  #decide(answeredBy: AnsweredBy, atMs: number): Detection[] {
    // A machine's start in detect_message_end mode is said at once; detection goes on for the end of its message.
    const final = !(answeredBy === 'machine_start' && this.#s.mode === 'detect_message_end');
    if (answeredBy === 'machine_start') this.#machine = true;
    this.#done = final;
    return [{ answeredBy, atMs, final }];
  }
}
