// What the media operations (collect, record, recordings) need from a live leg, so each can live in its own
// module without reaching into the leg's private state.
import type { Logger } from 'pino';
import type { HangupInfo } from '../port.js';
import type { DigitBuffer } from './digits.js';
import type { Endpoint } from './fsmrf.js';
import type { MediaStep } from './media.js';

export interface MediaContext {
  readonly ep: Endpoint;
  readonly digits: DigitBuffer;
  readonly ended: Promise<HangupInfo>;
  readonly isEnded: boolean;
  readonly log: Logger;
  /** Plays one step; resolves when it finishes, is interrupted or the leg ends. Never rejects. */
  step(step: MediaStep): Promise<void>;
  /** Stops whatever the channel is playing or recording (a key pressed during a prompt). */
  interrupt(): Promise<void>;
  /** Call before starting a FreeSWITCH media app directly: clears a break left by interrupt() (see DrachtioLeg). */
  settleBreak(): Promise<void>;
  /** `stop` is called when stopMedia() ends the operation under way; returns its release. */
  onMediaStop(stop: () => void): () => void;
}

/** FreeSWITCH calls whose failure only matters while the leg is up; afterwards they fail by nature. */
export async function quietly<T>(ctx: { isEnded: boolean; log: Logger }, what: string, op: () => Promise<T>): Promise<T | undefined> {
  try {
    return await op();
  } catch (err) {
    if (!ctx.isEnded) ctx.log.warn({ err: (err as Error).message }, `${what} failed`);
    return undefined;
  }
}
