// Whole-call recordings (startCallRecording / startEarlyRecording). They belong to the call, not to one
// object: a recording started while ringing carries on after answer and is finalised by any hangup.
import type { CallRecording, CallRecordingOptions } from '../port.js';
import { callAudio } from './audio.js';
import type { Line } from './line.js';
import { writeWav } from '../../media/wav.js';
import { EngineError } from '../port.js';

class SandboxCallRecording implements CallRecording {
  readonly file: string;
  readonly channels: 1 | 2;
  #recordedMs = 0;
  /** When the current unpaused stretch began; null while paused or finished. */
  #since: number | null;
  #outcome: { durationMs: number } | Error | undefined;
  readonly #started: boolean;
  readonly #releaseEnd: () => void;

  constructor(private readonly line: Line, private readonly opts: CallRecordingOptions) {
    this.file = opts.file;
    this.channels = opts.tracks === 'both' && opts.dualChannel ? 2 : 1;
    this.#since = line.clock.now();
    this.#started = !line.isEnded;
    if (!this.#started) {
      this.#releaseEnd = () => {};
      this.#finish();
      return;
    }
    line.transcript.add({ type: 'recording-started', file: this.file });
    this.#releaseEnd = line.onEnd(() => this.#finish());
  }

  async pause(): Promise<void> {
    this.#refuseIfFaulted('pause');
    this.#bank();
  }

  async resume(): Promise<void> {
    this.#refuseIfFaulted('resume');
    if (this.#since === null && this.#outcome === undefined) this.#since = this.line.clock.now();
  }

  async stop(): Promise<{ durationMs: number }> {
    this.#refuseIfFaulted('stop');
    this.#finish();
    if (this.#outcome instanceof Error) throw this.#outcome;
    return this.#outcome!;
  }

  #refuseIfFaulted(command: string): void {
    const fault = this.line.faults.recordingCommand;
    if (fault) throw new EngineError(`sandbox: recording ${command} refused`, fault.status, fault.body);
  }

  /** Never throws: it also runs inside a hangup, which must complete; stop() reports a failed write. */
  #finish(): void {
    if (this.#outcome !== undefined) return;
    this.#bank();
    this.#releaseEnd();
    const durationMs = this.#recordedMs;
    try {
      writeWav(this.file, callAudio(durationMs, this.opts.tracks, this.opts.dualChannel));
      this.#outcome = { durationMs };
    } catch (err) {
      this.#outcome = new Error(`sandbox: cannot write call recording ${this.file}: ${(err as Error).message}`);
    }
    if (this.#started) this.line.transcript.add({ type: 'recording-stopped', file: this.file });
  }

  /** Adds the current unpaused stretch to the total. */
  #bank(): void {
    if (this.#since === null) return;
    this.#recordedMs += this.line.clock.now() - this.#since;
    this.#since = null;
  }
}

/** Starting on a call that has already ended still yields a (zero-length) file, so callers need no special case. */
export function startCallRecording(line: Line, opts: CallRecordingOptions): CallRecording {
  return new SandboxCallRecording(line, opts);
}
