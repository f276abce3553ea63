// The Record verb: what the caller says goes to a WAV file, until a finish key, silence, the length limit
// or the hang-up. FreeSWITCH's record app does the work; terminators and silence detection are its own.
import type { RecordOptions, RecordResult } from '../port.js';
import { quietly, type MediaContext } from './media-context.js';

/** Average-energy threshold below which a frame counts as silence (FreeSWITCH's scale; speech is far above). */
const SILENCE_THRESHOLD = 200;
const BEEP = 'tone_stream://%(400,0,800)';

export async function record(ctx: MediaContext, opts: RecordOptions): Promise<RecordResult> {
  const { ep } = ctx;
  const terminators = opts.finishOnKey === '' ? 'none' : opts.finishOnKey;
  // Keys pressed before the recording (menu choices) must not end it; FreeSWITCH queues them too.
  ctx.digits.clear();
  await quietly(ctx, 'record setup', async () => {
    await ep.execute('flush_dtmf');
    await ep.set({ playback_terminators: terminators, record_sample_rate: '8000', record_waste_resources: 'false' });
  });
  if (opts.beep) await ctx.step({ kind: 'file', file: BEEP });
  const started = Date.now();
  if (ctx.isEnded) return { file: opts.file, durationMs: 0, reason: 'hangup' };

  const limitSecs = opts.maxLengthMs > 0 ? Math.ceil(opts.maxLengthMs / 1000) : 3600;
  const silenceSecs = opts.silenceTimeoutMs > 0 ? Math.max(1, Math.round(opts.silenceTimeoutMs / 1000)) : 0;
  const args = silenceSecs > 0 ? `${opts.file} ${limitSecs} ${SILENCE_THRESHOLD} ${silenceSecs}` : `${opts.file} ${limitSecs}`;
  // stopMedia() breaks the record app (the file keeps what it holds); it ends on its own then.
  let interrupted = false;
  const releaseStop = ctx.onMediaStop(() => { interrupted = true; });
  await ctx.settleBreak();
  const evt = await Promise.race([
    quietly(ctx, 'record', () => ep.execute('record', args)),
    ctx.ended.then(() => undefined),
  ]).finally(releaseStop);
  const measured = Number(evt?.getHeader('variable_record_ms'));
  const durationMs = Number.isFinite(measured) && measured > 0 ? measured : Date.now() - started;
  const key = evt?.getHeader('variable_playback_terminator_used');
  await quietly(ctx, 'record cleanup', () => ep.set('playback_terminators', 'none'));
  if (ctx.isEnded) return { file: opts.file, durationMs, reason: 'hangup' };
  if (interrupted) return { file: opts.file, durationMs, reason: 'interrupted' };
  if (key && key !== 'none') return { file: opts.file, durationMs, reason: 'finish-key', finishKey: key };
  if (opts.maxLengthMs > 0 && durationMs >= opts.maxLengthMs - 1000) return { file: opts.file, durationMs, reason: 'max-length' };
  return { file: opts.file, durationMs, reason: 'silence' };
}
