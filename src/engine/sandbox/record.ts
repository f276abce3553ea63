// record(): a voicemail-style recording of the far end. The simulated caller talks for their script's speakMs
// and then stays silent, so silence detection has something to detect.
import { EngineError, type RecordOptions, type RecordResult } from '../port.js';
import { speechThenSilence } from './audio.js';
import type { DigitQueue } from './digits.js';
import type { Line } from './line.js';
import { beepMedia } from './media-timing.js';
import { writeWav } from '../../media/wav.js';

type Reason = RecordResult['reason'];

/** When the recording would stop on its own; non-positive limits mean "no limit". */
function naturalEnd(opts: RecordOptions, speakMs: number): { at: number; reason: Reason } | undefined {
  const silence = opts.silenceTimeoutMs > 0 ? speakMs + opts.silenceTimeoutMs : Infinity;
  const max = opts.maxLengthMs > 0 ? opts.maxLengthMs : Infinity;
  if (silence === Infinity && max === Infinity) return undefined;
  return silence < max ? { at: silence, reason: 'silence' } : { at: max, reason: 'max-length' };
}

export async function record(line: Line, keys: DigitQueue, opts: RecordOptions): Promise<RecordResult> {
  const stopped = line.mediaStop;
  if (opts.beep) await line.perform(beepMedia);
  return new Promise((resolve, reject) => {
    const startedAt = line.clock.now();
    let releaseKeys = () => {};
    let releaseEnd = () => {};
    let releaseStop = () => {};
    let timer: ReturnType<Line['schedule']> = undefined;
    let started = false;
    const finish = (reason: Reason, finishKey?: string) => {
      line.cancel(timer);
      releaseKeys();
      releaseEnd();
      releaseStop();
      const durationMs = line.clock.now() - startedAt;
      try {
        writeWav(opts.file, speechThenSilence(durationMs, Math.min(durationMs, line.speakMs)));
      } catch (err) {
        return reject(new EngineError(`sandbox: cannot write recording ${opts.file}: ${(err as Error).message}`));
      }
      if (started) line.transcript.add({ type: 'recording-stopped', file: opts.file });
      resolve({ file: opts.file, durationMs, reason, ...(finishKey === undefined ? {} : { finishKey }) });
    };
    if (line.isEnded) return finish('hangup');
    if (stopped.aborted) return finish('interrupted');

    line.transcript.add({ type: 'recording-started', file: opts.file });
    started = true;
    const end = naturalEnd(opts, line.speakMs);
    if (end) timer = line.schedule(end.at, () => finish(end.reason));
    releaseKeys = keys.intercept((key) => {
      if (!opts.finishOnKey.includes(key)) return false;
      finish('finish-key', key);
      return true;
    });
    releaseEnd = line.onEnd(() => finish('hangup'));
    const interrupted = () => finish('interrupted');
    stopped.addEventListener('abort', interrupted);
    releaseStop = () => stopped.removeEventListener('abort', interrupted);
  });
}
