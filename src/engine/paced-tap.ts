// The engine-neutral half of an AudioTap: listeners, the playout queue towards the caller (20 ms pacing from a
// short pre-buffer, marks, clear) and closing. An engine supplies where played frames go and how to release
// its media; it feeds captured audio in with deliver().
import { EventEmitter } from 'node:events';
import type { Clock, TimerHandle } from '../clock.js';
import { ULAW_SILENCE } from '../media/mulaw.js';
import { AUDIO_FRAME_BYTES, AUDIO_FRAME_MS, type AudioFrame, type AudioTap, type AudioTapEvents, type AudioTapMode } from './port.js';

/**
 * Playout starts once this many frames are queued, or one frame time after the first arrived: a peer's frames
 * come over TCP in bursts, and a frame of slack absorbs that jitter without adding audible delay.
 */
export const PREBUFFER_FRAMES = 2;
/** The most audio a tap holds for the caller (2 minutes): a peer sending faster than real time is cut off here. */
export const MAX_QUEUED_FRAMES = 6_000;

/** Empty ticks (200 ms) the playout grid is kept through, waiting for a late frame. */
const IDLE_TICKS = 10;

type Item = { frame: Buffer } | { mark: string };

export interface TapEngineSide {
  /**
   * One paced 20 ms µ-law frame for the caller, and its place on the playout grid (clock ms): consecutive frames
   * are exactly 20 ms apart however late the timer that plays them fires, and empty ticks show as wider steps.
   */
  play(frame: Buffer, at: number): void;
  /** Queued frames were dropped unheard (clear). */
  cleared?(frames: number): void;
  /** Frees the engine's media; called once. */
  release(): Promise<void>;
}

export class QueueFullError extends Error {
  override name = 'QueueFullError';
}

export class PacedAudioTap implements AudioTap {
  readonly closed: Promise<void>;
  readonly #events = new EventEmitter();
  readonly #queue: Item[] = [];
  #frames = 0;
  /** Bytes short of a whole frame, kept for the next send. */
  #partial = Buffer.alloc(0);
  #timer: TimerHandle | null = null;
  /** Clock time of the next frame while playing; null while idle. */
  #nextAt: number | null = null;
  /** The first timer of a playout is the pre-buffer's wait. */
  #prebuffering = false;
  /** Ticks in a row with nothing to play. */
  #idleTicks = 0;
  #closing: Promise<void> | null = null;
  #resolveClosed!: () => void;

  constructor(readonly mode: AudioTapMode, private readonly clock: Clock, private readonly engine: TapEngineSide, readonly mixed = false) {
    this.closed = new Promise((resolve) => { this.#resolveClosed = resolve; });
  }

  get queuedFrames(): number { return this.#frames; }
  get isClosed(): boolean { return this.#closing !== null; }

  on<E extends keyof AudioTapEvents>(event: E, listener: AudioTapEvents[E]): void { this.#events.on(event, listener); }
  off<E extends keyof AudioTapEvents>(event: E, listener: AudioTapEvents[E]): void { this.#events.off(event, listener); }

  /** Captured audio from the engine, handed to listeners. */
  deliver(frame: AudioFrame): void {
    if (!this.isClosed) this.#events.emit('frame', frame);
  }

  send(payload: Buffer): void {
    if (this.mode !== 'bidirectional') throw new Error('a fork only listens: it cannot send audio to the caller');
    if (this.isClosed) return;
    const data = this.#partial.length > 0 ? Buffer.concat([this.#partial, payload]) : payload;
    const whole = data.length - (data.length % AUDIO_FRAME_BYTES);
    if (this.#frames + whole / AUDIO_FRAME_BYTES > MAX_QUEUED_FRAMES) {
      throw new QueueFullError(`more than ${MAX_QUEUED_FRAMES * AUDIO_FRAME_MS / 1000} s of audio queued for the caller`);
    }
    for (let at = 0; at < whole; at += AUDIO_FRAME_BYTES) this.#queue.push({ frame: Buffer.from(data.subarray(at, at + AUDIO_FRAME_BYTES)) });
    this.#frames += whole / AUDIO_FRAME_BYTES;
    this.#partial = Buffer.from(data.subarray(whole));
    this.#kick();
  }

  mark(name: string): void {
    if (this.isClosed) return;
    this.#flushPartial();
    if (this.#queue.length === 0) {
      // Nothing ahead of it: played already. Asynchronously, so a listener never runs inside mark().
      queueMicrotask(() => { if (!this.isClosed) this.#events.emit('mark', name); });
      return;
    }
    this.#queue.push({ mark: name });
  }

  clear(): void {
    if (this.#frames > 0) this.engine.cleared?.(this.#frames);
    const marks = this.#queue.flatMap((item) => ('mark' in item ? [item.mark] : []));
    this.#queue.length = 0;
    this.#frames = 0;
    this.#partial = Buffer.alloc(0);
    this.#stopTimer();
    for (const name of marks) this.#events.emit('mark', name);
  }

  close(): Promise<void> {
    this.#closing ??= (async () => {
      this.#queue.length = 0;
      this.#frames = 0;
      this.#stopTimer();
      try {
        await this.engine.release();
      } finally {
        this.#events.removeAllListeners();
        this.#resolveClosed();
      }
    })();
    return this.#closing;
  }

  /** A short last piece of audio before a mark is padded to a whole frame with silence, so the mark is reached. */
  #flushPartial(): void {
    if (this.#partial.length === 0) return;
    const frame = Buffer.alloc(AUDIO_FRAME_BYTES, ULAW_SILENCE);
    this.#partial.copy(frame);
    this.#partial = Buffer.alloc(0);
    this.#queue.push({ frame });
    this.#frames++;
    this.#kick();
  }

  /** Starts playout when idle: at once with a pre-buffer's worth queued, else one frame time later. */
  #kick(): void {
    if (this.#frames === 0) return;
    // Waiting for a pre-buffer that is now complete: start now rather than at the end of the wait.
    if (this.#timer && this.#prebuffering && this.#frames >= PREBUFFER_FRAMES) this.#stopTimer();
    if (this.#timer) return;
    const wait = this.#frames >= PREBUFFER_FRAMES ? 0 : AUDIO_FRAME_MS;
    this.#prebuffering = wait > 0;
    this.#nextAt = this.clock.now() + wait;
    this.#timer = this.clock.setTimeout(() => this.#tick(), wait);
  }

  #tick(): void {
    this.#timer = null;
    this.#prebuffering = false;
    if (this.isClosed) return;
    const at = this.#nextAt ?? this.clock.now();
    const item = this.#queue.shift();
    if (item && 'frame' in item) {
      this.#frames--;
      this.#idleTicks = 0;
      this.engine.play(item.frame, at);
    }
    // Marks right behind the frame just played are reached now.
    while (this.#queue[0] && 'mark' in this.#queue[0]) this.#events.emit('mark', (this.#queue.shift() as { mark: string }).mark);
    // A frame that comes a little late waits for the next tick of the same grid instead of restarting playout
    // with a new pre-buffer: every restart would add its wait to the delay for good (live audio arrives at
    // exactly the rate it plays). Only after IDLE_TICKS empty ticks does playout stop.
    if (this.#queue.length === 0 && ++this.#idleTicks > IDLE_TICKS) { this.#nextAt = null; this.#idleTicks = 0; return; }
    // Scheduled against absolute times, so timer lateness does not accumulate into drift.
    this.#nextAt = at + AUDIO_FRAME_MS;
    this.#timer = this.clock.setTimeout(() => this.#tick(), Math.max(0, this.#nextAt - this.clock.now()));
  }

  #stopTimer(): void {
    if (this.#timer) this.clock.clearTimeout(this.#timer);
    this.#timer = null;
    this.#nextAt = null;
    this.#idleTicks = 0;
  }
}
