// DTMF received on a leg. Keys nobody is waiting for are buffered, like FreeSWITCH's DTMF queue, so callers can
// type ahead of a prompt; a running record() gets first refusal to catch its finish keys.
import type { Line } from './line.js';

type Interceptor = (digit: string) => boolean;

export class DigitQueue {
  readonly #buffered: string[] = [];
  readonly #arrivalListeners = new Set<() => void>();
  #waiter: ((digit: string | undefined) => void) | null = null;
  #interceptor: Interceptor | null = null;

  constructor(private readonly line: Line) {}

  get size(): number { return this.#buffered.length; }

  push(digit: string): void {
    if (this.#interceptor?.(digit)) return;
    if (this.#waiter) return this.#waiter(digit);
    this.#buffered.push(digit);
    for (const listener of [...this.#arrivalListeners]) listener();
  }

  /** Called when a key is buffered (nobody waiting for it): used for barge-in during prompts. */
  onArrival(listener: () => void): () => void {
    this.#arrivalListeners.add(listener);
    return () => { this.#arrivalListeners.delete(listener); };
  }

  /** Lets `fn` consume keys before anyone else; returns the release function. */
  intercept(fn: Interceptor): () => void {
    this.#interceptor = fn;
    return () => { if (this.#interceptor === fn) this.#interceptor = null; };
  }

  /** The next key, or undefined after `timeoutMs` without one or when the call ends. */
  async next(timeoutMs: number): Promise<string | undefined> {
    const buffered = this.#buffered.shift();
    if (buffered !== undefined) return buffered;
    this.#waiter?.(undefined); // only one collection can own the keypad at a time
    const arrived = new AbortController();
    let digit: string | undefined;
    const waiter = (key: string | undefined) => {
      this.#waiter = null; // a second key in the same tick must be buffered, not overwrite this one
      digit = key;
      arrived.abort();
    };
    this.#waiter = waiter;
    await this.line.sleep(timeoutMs, arrived.signal);
    if (this.#waiter === waiter) this.#waiter = null;
    return digit;
  }
}
