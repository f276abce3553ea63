// Audio taps, as the engine port (port.ts) speaks of them: a live connection to a call's audio in 20 ms µ-law frames,
// both ways (a media stream) or listening only (a fork).
/** Which of the call's audio an AudioTap carries, from the platform's point of view. */
export type AudioTrack = 'inbound' | 'outbound';

/**
 * 'bidirectional': the tap hears the caller and what it sends is played to the caller (instead of other media).
 * 'fork': the tap only listens; the call goes on as if it were not there.
 */
export type AudioTapMode = 'bidirectional' | 'fork';

/** 20 ms of 8 kHz µ-law (160 bytes): the one frame size taps speak, whatever the engine carries inside. */
export const AUDIO_FRAME_MS = 20;
export const AUDIO_FRAME_BYTES = 160;

export interface AudioFrame {
  track: AudioTrack;
  /** 160 bytes of µ-law (G.711 PCMU). */
  payload: Buffer;
}

export interface AudioTapEvents {
  /** One 20 ms frame of the call's audio, in order per track. */
  frame: (frame: AudioFrame) => void;
  /** Every frame queued before mark(name) has been played (or dropped by clear(): Twilio answers those too). */
  mark: (name: string) => void;
}

/** A live connection to a call's audio (a media stream); engine-neutral: 20 ms µ-law frames both ways. */
export interface AudioTap {
  readonly mode: AudioTapMode;
  /**
   * A fork whose engine can only give the call's mix (both directions in one stream, delivered as 'inbound'):
   * FreeSWITCH eavesdrop. Otherwise each track comes separately.
   */
  readonly mixed: boolean;
  on<E extends keyof AudioTapEvents>(event: E, listener: AudioTapEvents[E]): void;
  off<E extends keyof AudioTapEvents>(event: E, listener: AudioTapEvents[E]): void;
  /** Queues µ-law audio (any length; cut into 20 ms frames) to play to the caller at 20 ms a frame. Bidirectional only. */
  send(payload: Buffer): void;
  /** Drops every queued frame at once (barge-in); pending marks fire. */
  clear(): void;
  /** Queues a mark: the 'mark' event fires once everything queued before it has been played. */
  mark(name: string): void;
  /** Frames queued and not yet played. */
  readonly queuedFrames: number;
  /** Stops the audio both ways and frees what the engine holds. Idempotent. */
  close(): Promise<void>;
  /** Resolves once, when the tap is closed (close(), or the leg ended). */
  readonly closed: Promise<void>;
}

export interface AudioTapOptions {
  mode: AudioTapMode;
  /**
   * A fork that hears only the far end (the inbound track), never what the platform plays to it: a recognizer or a
   * detector listening while prompts play. Not mixed, whatever the engine.
   */
  callerOnly?: boolean;
}
