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

/** A clock that only moves when told to; timers fire in due order during `advance`. */
export class FakeClock implements Clock {
  #now: number;
  #timers: FakeTimer[] = [];
  #next = 1;

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

  /** Moves time forward, firing due timers one by one and letting promise callbacks run between them. */
  async advance(ms: number): Promise<void> {
    const target = this.#now + ms;
    for (;;) {
      await flushMicrotasks();
      const due = this.#timers.filter((t) => t.at <= target).sort((a, b) => a.at - b.at || a.id - b.id)[0];
      if (!due) break;
      this.#timers = this.#timers.filter((t) => t !== due);
      this.#now = Math.max(this.#now, due.at);
      due.fn();
    }
    this.#now = target;
    await flushMicrotasks();
  }
}

async function flushMicrotasks(): Promise<void> {
  for (let i = 0; i < 5; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
