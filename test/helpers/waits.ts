// Bounded waits for tests that watch real processes: poll a condition, or race a promise against a deadline,
// failing with what was awaited rather than hanging until tap's timeout.

/** Resolves once `cond` holds (checked every `everyMs`), rejects after `ms` saying `what` (read then, if a function). */
export async function until(what: string | (() => string | Promise<string>), ms: number, cond: () => boolean | Promise<boolean>, everyMs = 5): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${typeof what === 'string' ? what : await what()}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

/** `p`, or a rejection naming `what` after `ms`. */
export function bounded<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout;
  return Promise.race([
    p.finally(() => clearTimeout(timer)),
    new Promise<never>((_, reject) => { timer = setTimeout(() => reject(new Error(`${what}: no result within ${ms} ms`)), ms); }),
  ]);
}
