// A REST client's redirect of a live call (POST /api/calls/{sid} with url or markup): the document running on the
// call stops where it is, its verb releasing what it held, and the new document runs in its place.
import type { Verb } from '../markup/index.js';

/** A document that replaces the running one; `url` is what its relative action URLs resolve against. */
export interface NextDocument { verbs: Verb[]; url: string | null }

export class LiveDocument {
  #controller = new AbortController();
  #next: NextDocument | null = null;
  #running = false;

  /** Aborted when a redirect replaces the running document; each replacement gets a fresh signal. */
  get signal(): AbortSignal { return this.#controller.signal; }

  /** Whether markup runs on the call (from the first document request until the last verb): what a redirect replaces. */
  get running(): boolean { return this.#running; }

  started(): void { this.#running = true; }
  finished(): void { this.#running = false; }

  /** Stops the running document (its verb sees `signal` abort) and queues `next` in its place; a later redirect wins. */
  replace(next: NextDocument): void {
    this.#next = next;
    this.#controller.abort();
  }

  /** The document a redirect queued, if any; taking it arms a fresh signal for that document. */
  take(): NextDocument | null {
    const next = this.#next;
    if (!next) return null;
    this.#next = null;
    this.#controller = new AbortController();
    return next;
  }
}
