// Waiting with a bound, and on abort signals: the few shapes every part of the platform waits in.
import type { Clock } from './clock.js';

/**
 * `work`'s value, or undefined once `ms` have passed without it; rejects when `work` does, within the bound. The
 * timer is cleared when `work` settles. It does keep the process up meanwhile: an unref'd one let a process with
 * nothing else to do exit in the middle of the wait (a shutdown's drain, before its engine and store were closed).
 */
export async function settledWithin<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: NodeJS.Timeout | undefined;
  // Out of time only once what had already arrived is read: after a stalled event loop the timer is due in the same
  // turn as the answer waiting on its socket, and timers run first. setImmediate runs after that turn's I/O.
  const bound = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => setImmediate(() => resolve(undefined)), ms);
  });
  try {
    return await Promise.race([work, bound]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `signal` aborts (at once if it has): something to race a long wait against. */
export function whenAborted(signal: AbortSignal): Promise<void> {
  if (signal.aborted) return Promise.resolve();
  return new Promise((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
}

/**
 * Runs `react` when `signal` aborts, or at once if it already has (a listener added after the abort never fires);
 * returns what removes it. A missing signal never aborts.
 */
export function onAbort(signal: AbortSignal | undefined, react: () => void): () => void {
  if (!signal) return () => undefined;
  if (signal.aborted) {
    react();
    return () => undefined;
  }
  signal.addEventListener('abort', react, { once: true });
  return () => signal.removeEventListener('abort', react);
}

/** True after `ms` on `clock`; false as soon as `stop` aborts (at once if it has). */
export function sleepUnless(clock: Clock, ms: number, stop: AbortSignal): Promise<boolean> {
  if (stop.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = clock.setTimeout(() => { off(); resolve(true); }, ms);
    const off = onAbort(stop, () => { clock.clearTimeout(timer); resolve(false); });
  });
}
