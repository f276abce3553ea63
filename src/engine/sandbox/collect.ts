// Digit collection with FreeSWITCH play_and_get_digits semantics: keys typed before or during the prompts
// count and cut the prompts short; the timeout runs from the end of the prompts and again after each key.
import type { CollectOptions, CollectResult } from '../port.js';
import type { DigitQueue } from './digits.js';
import type { Line } from './line.js';
import { promptMedia } from './media-timing.js';

export async function collectDigits(line: Line, keys: DigitQueue, opts: CollectOptions): Promise<CollectResult> {
  const stopped = line.mediaStop;
  const bargeIn = new AbortController();
  if (keys.size > 0) bargeIn.abort();
  const stopListening = keys.onArrival(() => bargeIn.abort());
  for (const prompt of opts.prompts) {
    if (!(await line.perform(promptMedia(prompt), bargeIn.signal))) break;
  }
  stopListening();
  if (line.isEnded) return { digits: '', reason: 'timeout' };
  if (stopped.aborted) return { digits: '', reason: 'interrupted' };
  if (!bargeIn.signal.aborted) line.awaitingInput();

  let digits = '';
  for (;;) {
    const key = await keys.next(opts.timeoutMs);
    // A hangup mid-collection reports what was typed so far, as a timeout: the port has no 'hangup' reason.
    if (key === undefined) return { digits, reason: stopped.aborted && !line.isEnded ? 'interrupted' : 'timeout' };
    if (opts.finishOnKey.includes(key)) return { digits, reason: 'finish-key' };
    digits += key;
    if (opts.numDigits !== undefined && digits.length >= opts.numDigits) return { digits, reason: 'num-digits' };
  }
}
