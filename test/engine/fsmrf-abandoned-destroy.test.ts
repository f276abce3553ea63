// fsmrf destroys a media dialog FreeSWITCH never connected back for and drops the promise: with drachtio's
// connection gone that promise rejects, and unhandled it would end the process.
import t from 'tap';
import { setImmediate as nextTurn } from 'node:timers/promises';
import { catchAbandonedDestroys, type MediaServer } from '../../src/engine/drachtio/fsmrf.js';

t.test('a dropped destroy() that fails is handled; an awaited one still reports its failure', async (t) => {
  const pendingConnections = new Map<string, { dialog?: unknown }>();
  catchAbandonedDestroys({ pendingConnections } as unknown as MediaServer);
  const unhandled: unknown[] = [];
  const onUnhandled = (reason: unknown) => unhandled.push(reason);
  process.on('unhandledRejection', onUnhandled);
  t.teardown(() => { process.off('unhandledRejection', onUnhandled); });

  // As fsmrf does: an empty entry first, the dialog assigned once the INVITE is answered.
  pendingConnections.set('uuid-1', {});
  const entry = pendingConnections.get('uuid-1')!;
  const dialog = { destroy: () => Promise.reject(new Error('provided socket has been destroyed')) };
  entry.dialog = dialog;
  t.equal(entry.dialog, dialog, 'the same dialog');

  void dialog.destroy();
  await nextTurn();
  await nextTurn();
  t.same(unhandled, [], 'no unhandled rejection');
  await t.rejects(dialog.destroy(), /socket has been destroyed/, 'a caller that waits still sees the failure');
});
