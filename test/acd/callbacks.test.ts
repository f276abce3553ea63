// Scheduled callbacks in SQLite: claimed once when due (and the hook runs in the claim's transaction), canceled only
// while scheduled, retried until the third attempt fails, and put back to scheduled when a process died dialing.
import t from 'tap';
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { openStore } from '../../src/store/index.js';
import { FakeClock } from '../../src/clock.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../src/acd/queues.js';

function world(t: { teardown(fn: () => unknown): void }) {
  const clock = new FakeClock();
  const store = openStore(mkdtempSync(path.join(os.tmpdir(), 'rb-cb-')), clock);
  t.teardown(() => store.close());
  const account = store.accounts.create({ name: 'acd', trunking: true, trunkCapacity: 20 });
  const queue = store.queues.create(account.id, 'QU0', { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'callbacks' });
  const make = (sid: string, dueInMs: number) => store.scheduledCallbacks.create({
    sid, accountId: account.id, queueId: queue.id, to: '+15550100003', from: '+15550100002', dueAt: clock.now() + dueInMs, attributes: { name: 'Ada' }, leadSid: null,
  });
  return { clock, store, make };
}

t.test('due callbacks are claimed once, oldest due first, with the hook in the same transaction', async (t) => {
  const { clock, store, make } = world(t);
  make('CB2', 2_000);
  make('CB1', 1_000);
  make('CB3', 60_000);
  const seen: string[] = [];
  t.same(store.scheduledCallbacks.claimDue(10, (c) => seen.push(c.sid)), [], 'nothing due yet');
  await clock.advance(2_000);
  const claimed = store.scheduledCallbacks.claimDue(10, (c) => seen.push(c.sid));
  t.same(claimed.map((c) => [c.sid, c.status, c.attempts]), [['CB1', 'dialing', 1], ['CB2', 'dialing', 1]]);
  t.same(seen, ['CB1', 'CB2']);
  t.same(store.scheduledCallbacks.claimDue(10, () => undefined), [], 'a claimed callback is not claimed again');
  t.notOk(store.scheduledCallbacks.cancel('CB1'), 'dialing: too late to cancel');
  t.ok(store.scheduledCallbacks.cancel('CB3'), 'scheduled: canceled');
  t.equal(store.scheduledCallbacks.get('CB3')!.status, 'canceled');
  t.same(store.scheduledCallbacks.get('CB1')!.attributes, { name: 'Ada' });
});

t.test('a failed attempt is scheduled again; the last one fails for good; a dead process\'s dialing is scheduled again', async (t) => {
  const { clock, store, make } = world(t);
  make('CB1', 0);
  store.scheduledCallbacks.claimDue(1, () => undefined);
  store.scheduledCallbacks.attemptFailed('CB1', 'no answer', clock.now() + 300_000);
  t.match(store.scheduledCallbacks.get('CB1'), { status: 'scheduled', attempts: 1, lastError: 'no answer', dueAt: clock.now() + 300_000 });
  await clock.advance(300_000);
  store.scheduledCallbacks.claimDue(1, () => undefined);
  t.equal(store.scheduledCallbacks.requeueDialing((sid) => sid === 'CB1').length, 0, 'an attempt this process runs is left alone');
  t.equal(store.scheduledCallbacks.requeueDialing(() => false).length, 1, 'a dead process\'s attempt is scheduled again');
  t.match(store.scheduledCallbacks.get('CB1'), { status: 'scheduled', attempts: 2 });
  store.scheduledCallbacks.claimDue(1, () => undefined);
  store.scheduledCallbacks.attemptFailed('CB1', 'busy', null);
  t.match(store.scheduledCallbacks.get('CB1'), { status: 'failed', attempts: 3, lastError: 'busy' });
});
