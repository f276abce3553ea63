// The platform's handle on a simulated call that has arrived but is not answered yet.
import { EngineError, type CallLeg, type CallRecording, type CallRecordingOptions, type CallSource, type HangupInfo, type IncomingCall } from '../port.js';
import { SandboxLeg } from './leg.js';
import type { Line } from './line.js';
import { startCallRecording } from './recording.js';
import { ringbackMedia } from './media-timing.js';
import type { RingTone } from '../../markup/ring-tones.js';

const REJECTIONS = {
  busy: { cause: 'busy', sipStatus: 486 },
  rejected: { cause: 'rejected', sipStatus: 603 },
  unavailable: { cause: 'rejected', sipStatus: 480 },
} as const;

export class SandboxIncomingCall implements IncomingCall {
  #leg: SandboxLeg | undefined;

  constructor(private readonly line: Line, readonly source: CallSource) {}

  get id(): string { return this.line.id; }
  get from(): string { return this.line.from; }
  get to(): string { return this.line.to; }
  get ended(): Promise<HangupInfo> { return this.line.ended; }

  async ring(): Promise<void> { this.line.ring(); }

  async earlyRingback(tone: RingTone, stop: AbortSignal): Promise<void> {
    if (!this.#leg) await this.line.performEarly(ringbackMedia(tone), stop);
  }

  /** A simulated answer costs nothing to prepare. */
  prepareAnswer(): void {}

  async startEarlyRecording(opts: CallRecordingOptions): Promise<CallRecording> {
    return startCallRecording(this.line, opts);
  }

  /** Idempotent. Rejects once the caller has gone: there is nothing left to answer. */
  async answer(): Promise<CallLeg> {
    if (this.#leg) return this.#leg;
    if (this.line.isEnded) throw new EngineError(`sandbox: call ${this.id} ended before it was answered`);
    this.#leg = new SandboxLeg(this.line);
    this.line.answer();
    return this.#leg;
  }

  async reject(reason: 'busy' | 'rejected' | 'unavailable'): Promise<void> {
    if (this.#leg) throw new EngineError(`sandbox: call ${this.id} is already answered`);
    if (this.line.isEnded) return;
    this.line.transcript.add({ type: 'rejected', reason });
    this.line.end({ ...REJECTIONS[reason], by: 'local' });
  }
}
