// A recording of the whole call (policy, API, Dial record=...), controllable while the call lasts. It is a
// FreeSWITCH media bug (uuid_record) on the leg's channel: pause suspends the bug (the file skips the paused time),
// stop closes the file.
import type { CallRecording, CallRecordingOptions } from '../port.js';
import { quietly, type MediaContext } from './media-context.js';

/** Only the channel is needed: early recordings start before there is a leg. */
export type RecordingHost = Pick<MediaContext, 'ep' | 'isEnded' | 'log'>;

export async function startCallRecording(ctx: RecordingHost, opts: CallRecordingOptions): Promise<CallRecording> {
  const channels: 1 | 2 = opts.tracks === 'both' && opts.dualChannel ? 2 : 1;
  const { ep } = ctx;
  // Channel variables read when the media bug starts: which direction(s), and one or two channels. Set
  // through the API, not the set app, which would queue behind a prompt that is still playing.
  const vars = [
    `RECORD_STEREO=${channels === 2}`, `RECORD_READ_ONLY=${opts.tracks === 'inbound'}`,
    `RECORD_WRITE_ONLY=${opts.tracks === 'outbound'}`, 'record_sample_rate=8000',
    // FreeSWITCH deletes recordings shorter than 3 s by default, and holds back the first 500 ms (25 frames)
    // before writing: a recording controlled by the API must hold exactly what was said between start and stop.
    'RECORD_MIN_SEC=0', 'RECORD_PRE_BUFFER_FRAMES=0',
  ];
  await ep.api('uuid_setvar_multi', `${ep.uuid} ${vars.join(';')}`);
  const reply = await ep.api('uuid_record', `${ep.uuid} start ${opts.file}`);
  const body = reply.getBody?.() ?? '';
  if (!body.startsWith('+OK')) throw new Error(`uuid_record start failed: ${body.trim()}`);
  return new FsCallRecording(ctx, opts.file, channels);
}

class FsCallRecording implements CallRecording {
  #activeSince: number | null = Date.now();
  #accumulated = 0;
  #stopped: Promise<{ durationMs: number }> | null = null;

  constructor(private readonly ctx: RecordingHost, readonly file: string, readonly channels: 1 | 2) {}

  // Pause, not mask: a masked recording keeps writing (silence), so its file would hold the paused time too.
  async pause(): Promise<void> {
    if (this.#activeSince === null || this.#stopped) return;
    this.#accumulated += Date.now() - this.#activeSince;
    this.#activeSince = null;
    if (!this.ctx.isEnded) await this.#command('pause');
  }

  async resume(): Promise<void> {
    if (this.#activeSince !== null || this.#stopped) return;
    this.#activeSince = Date.now();
    if (!this.ctx.isEnded) await this.#command('resume');
  }

  /**
   * Idempotent; the file is closed once it resolves. After a hang-up the channel usually still exists (the leg
   * stops its recordings before it releases the channel), and stopping it there closes the file now; on a channel
   * FreeSWITCH already ended, the file was closed by that end and the command just fails.
   */
  stop(): Promise<{ durationMs: number }> {
    this.#stopped ??= (async () => {
      if (this.#activeSince !== null) this.#accumulated += Date.now() - this.#activeSince;
      this.#activeSince = null;
      if (this.ctx.ep.connected) await this.#command('stop');
      return { durationMs: this.#accumulated };
    })();
    return this.#stopped;
  }

  async #command(cmd: 'pause' | 'resume' | 'stop'): Promise<void> {
    await quietly(this.ctx, `uuid_record ${cmd}`, () => this.ctx.ep.api('uuid_record', `${this.ctx.ep.uuid} ${cmd} ${this.file}`));
  }
}
