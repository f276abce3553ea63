// The shared bounded wait: the work's value, undefined past the bound, the work's rejection.
import t from 'tap';
import { onAbort, settledWithin, sleepUnless, whenAborted } from '../src/waits.js';
import { FakeClock } from '../src/clock.js';

t.test('settledWithin gives the value in time, undefined past the bound, and passes a rejection on', async (t) => {
  t.equal(await settledWithin(Promise.resolve(7), 1_000), 7);
  t.equal(await settledWithin(new Promise<number>(() => {}), 20), undefined, 'a promise that never settles is given up on');
  await t.rejects(settledWithin(Promise.reject(new Error('boom')), 1_000), /boom/);
});

t.test('whenAborted resolves at the abort, or at once for a signal already aborted', async (t) => {
  const c = new AbortController();
  let done = false;
  const waiting = whenAborted(c.signal).then(() => { done = true; });
  await Promise.resolve();
  t.notOk(done, 'not before the abort');
  c.abort();
  await waiting;
  t.ok(done);
  await whenAborted(AbortSignal.abort());
  t.pass('an aborted signal resolves at once');
});

t.test('onAbort reacts once at the abort, at once for a signal already aborted, and not after it is removed', async (t) => {
  let calls = 0;
  const c = new AbortController();
  onAbort(c.signal, () => { calls++; });
  t.equal(calls, 0, 'not before the abort');
  c.abort();
  c.abort();
  t.equal(calls, 1, 'once at the abort');
  onAbort(AbortSignal.abort(), () => { calls++; });
  t.equal(calls, 2, 'a signal aborted before the listener is reacted to at once');
  const removed = new AbortController();
  onAbort(removed.signal, () => { calls++; })();
  removed.abort();
  t.equal(calls, 2, 'a removed reaction does not run');
  t.doesNotThrow(() => onAbort(undefined, () => { calls++; })(), 'no signal: nothing to watch');
  t.equal(calls, 2);
});

t.test('sleepUnless is true after its time on the clock, false at an abort, and false at once for a signal already aborted', async (t) => {
  const clock = new FakeClock();
  const slept = sleepUnless(clock, 100, new AbortController().signal);
  await clock.advance(100);
  t.equal(await slept, true);
  const stop = new AbortController();
  const stopped = sleepUnless(clock, 100, stop.signal);
  stop.abort();
  t.equal(await stopped, false);
  t.equal(clock.pendingTimers, 0, 'its timer is cleared at the abort');
  t.equal(await sleepUnless(clock, 100, stop.signal), false);
});
