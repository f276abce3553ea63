// Keys a caller pressed that no collection has consumed yet. Type-ahead is kept: a caller who knows the menu
// may answer before the prompt, and a key sent while the previous verb was still speaking is not lost.
export class DigitBuffer {
  readonly #keys: string[] = [];
  #listener: ((digit: string) => void) | null = null;

  push(digit: string): void {
    if (this.#listener) this.#listener(digit);
    else this.#keys.push(digit);
  }

  /** Delivers buffered keys, then live ones, to one consumer until `release` is called. */
  consume(listener: (digit: string) => void): () => void {
    this.#listener = listener;
    while (this.#keys.length > 0 && this.#listener === listener) listener(this.#keys.shift()!);
    return () => { if (this.#listener === listener) this.#listener = null; };
  }

  clear(): void { this.#keys.length = 0; }
}
