// Digit collection: prompts play until the first key, then keys are gathered until numDigits, a finish key,
// or the timeout (first-digit and inter-digit). Keys arrive as RFC 2833 events or, when the caller's SDP has
// no telephone-event, from in-band detection; both reach the leg's DigitBuffer.
import type { CollectOptions, CollectResult } from '../port.js';
import type { MediaContext } from './media-context.js';
import { promptStep } from './media.js';

export function collectDigits(ctx: MediaContext, opts: CollectOptions): Promise<CollectResult> {
  return new Promise((resolve) => {
    let digits = '';
    let prompting = true;
    let timer: NodeJS.Timeout | null = null;
    let done = false;
    let release: () => void = () => undefined;
    const finish = (reason: CollectResult['reason']) => {
      if (done) return;
      done = true;
      if (timer) clearTimeout(timer);
      release();
      if (prompting) void ctx.interrupt();
      resolve({ digits, reason });
    };
    const armTimer = () => {
      if (timer) clearTimeout(timer);
      timer = setTimeout(() => finish('timeout'), opts.timeoutMs);
    };
    release = ctx.digits.consume((key) => {
      if (prompting) { prompting = false; void ctx.interrupt(); }
      if (opts.finishOnKey !== '' && opts.finishOnKey.includes(key)) return finish('finish-key');
      digits += key;
      if (opts.numDigits !== undefined && digits.length >= opts.numDigits) return finish('num-digits');
      armTimer();
    });
    const releaseStop = ctx.onMediaStop(() => finish('interrupted'));
    const releaseKeys = release;
    release = () => { releaseKeys(); releaseStop(); };
    // Type-ahead keys are delivered inside consume(), possibly finishing before `release` was assigned.
    if (done) release();
    void ctx.ended.then(() => finish('timeout'));
    void (async () => {
      for (const prompt of opts.prompts) {
        if (!prompting || done) break;
        const step = promptStep(prompt);
        if (step) await ctx.step(step);
      }
      prompting = false;
      if (!done && timer === null) armTimer();
    })();
  });
}
