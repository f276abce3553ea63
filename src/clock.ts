// Time is injected everywhere so tests and the sandbox engine can run on simulated time.
export interface TimerHandle { readonly id: number }

export interface Clock {
  now(): number;
  setTimeout(fn: () => void, ms: number): TimerHandle;
  clearTimeout(handle: TimerHandle): void;
}

export function systemClock(): Clock {
  const timers = new Map<number, NodeJS.Timeout>();
  let next = 1;
  return {
    now: () => Date.now(),
    setTimeout(fn, ms) {
      const id = next++;
      const t = setTimeout(() => { timers.delete(id); fn(); }, Math.max(0, ms));
      t.unref?.();
      timers.set(id, t);
      return { id };
    },
    clearTimeout(handle) {
      const t = timers.get(handle.id);
      if (t) { clearTimeout(t); timers.delete(handle.id); }
    },
  };
}

interface FakeTimer { id: number; at: number; fn: () => void }

/** How long `advance` waits for work a timer started to settle before it gives up with an error. */
const SETTLE_LIMIT_MS = 10_000;

/** A clock that only moves when told to; timers fire in due order during `advance`. */
export class FakeClock implements Clock {
  #now: number;
  #timers: FakeTimer[] = [];
  #next = 1;
  readonly #settlers = new Set<() => Promise<void> | undefined>();

  constructor(start = Date.UTC(2026, 0, 1)) { this.#now = start; }

  now(): number { return this.#now; }

  setTimeout(fn: () => void, ms: number): TimerHandle {
    const timer = { id: this.#next++, at: this.#now + Math.max(0, ms), fn };
    this.#timers.push(timer);
    return { id: timer.id };
  }

  clearTimeout(handle: TimerHandle): void {
    this.#timers = this.#timers.filter((t) => t.id !== handle.id);
  }

  get pendingTimers(): number { return this.#timers.length; }

  /**
   * Makes `advance` wait, before each timer and at its end, until `settled()` is undefined: the work a timer started
   * on real I/O (a PostgreSQL store's queries) has finished, and the timers it sets are set, before time moves on, as
   * SQLite's synchronous statements finish within the turns `advance` lets pass. While that work is under way,
   * `settled()` returns a promise that resolves when it is worth asking again. Returns the undo.
   */
  settleOn(settled: () => Promise<void> | undefined): () => void {
    this.#settlers.add(settled);
    return () => { this.#settlers.delete(settled); };
  }

  /** Moves time forward, firing due timers one by one and letting promise callbacks run between them. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await this.#settle();
      const due = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = Math.max(this.#now, due.at);
      due.fn();
    }
    this.#now = target;
    await this.#settle();
  }

  /**
   * Moves time forward at once, as a machine waking from sleep: each timer due by then fires once, at the new time,
   * so a job that repeats every second runs once, not once per second skipped. For tests where hours must pass and
   * what the background jobs did meanwhile does not matter: advancing a day fired every period of every job, a
   * round trip each on PostgreSQL (a minute of a test's time).
   */
  async jump(ms: number): Promise<void> {
    this.#now += ms;
    await this.advance(0);
  }

  /** Pending promise callbacks run; then, while anything registered with settleOn is busy, again (bounded). */
  async #settle(): Promise<void> {
    const deadline = Date.now() + SETTLE_LIMIT_MS;
    await flushMicrotasks();
    for (;;) {
      const busy = [...this.#settlers].map((settled) => settled()).filter((p) => p !== undefined);
      if (busy.length === 0) return;
      if (Date.now() > deadline) throw new Error(`FakeClock: still busy ${SETTLE_LIMIT_MS} ms after a timer fired (a transaction held open while the clock advances?)`);
      await Promise.race(busy);
      await flushMicrotasks();
    }
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
