// A worker's look at its outbox is a transaction that claims rows: two at once would only compete for the same rows
// (and, on SQLite, queue behind each other). Asked for while one is under way, the next look runs once, after it.
export class OneAtATime {
  #running: Promise<void> | null = null;
  #again = false;

  /** `job` reports its own errors (`onError` gets anything it lets through) so a timer never ends the process. */
  constructor(private readonly job: () => Promise<void>, private readonly onError: (err: unknown) => void) {}

  run(): void {
    if (this.#running) {
      this.#again = true;
      return;
    }
    this.#running = this.job().catch(this.onError).finally(() => {
      this.#running = null;
      if (this.#again) {
        this.#again = false;
        this.run();
      }
    });
  }

  /** Resolves once no run is under way or asked for. */
  async idle(): Promise<void> {
    while (this.#running) await this.#running;
  }
}
