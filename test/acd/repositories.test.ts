// The ACD's repositories on SQLite and PostgreSQL: queues (names unique per account, pages, the live figures,
// delete refused while callers wait), agents (their queues replaced whole, filters, delete refused on a call),
// dispositions (oldest first) and lead campaigns (put replaces, names calling from a number).
import t from 'tap';
import { DispositionRepo } from '../../src/acd/dispositions.js';
import { LeadCampaignRepo } from '../../src/acd/campaigns.js';
import { DEFAULT_QUEUE_SETTINGS } from '../../src/acd/queues.js';
import { onEachBackend } from '../helpers/backends.js';
import { acdWorld } from './support/acd-world.js';

const settings = { ...DEFAULT_QUEUE_SETTINGS, friendlyName: 'sales' };

onEachBackend(t, 'queues: one name per account, pages newest first, live figures, delete only when empty', async (t, db) => {
  const w = await acdWorld(db, { agents: 2 });
  const sales = await w.queues.create(w.accountId, 'QU1', settings);
  await t.rejects(w.queues.create(w.accountId, 'QU2', settings), { friendlyName: 'sales', message: 'a queue named sales already exists' }, 'a second queue named sales');
  await t.rejects(w.queues.update(sales, { ...settings, friendlyName: 'support' }), { message: 'a queue named support already exists' }, 'a rename onto another queue');
  t.match(await w.queues.update(sales, { ...settings, ringTimeoutSeconds: 15 }), { sid: 'QU1', ringTimeoutSeconds: 15 });
  t.same((await w.queues.listForAccount(w.accountId, { beforeId: null, limit: 10 })).map((q) => q.sid), ['QU1', 'QU0']);
  t.same((await w.queues.listForAccount(w.accountId, { beforeId: sales.id, limit: 10 })).map((q) => q.sid), ['QU0'], 'the next page');
  t.equal((await w.queues.find(w.accountId, 'support'))?.sid, 'QU0', 'found by name');
  t.equal((await w.queues.find(w.accountId, 'QU1'))?.friendlyName, 'sales', 'and by sid');
  const r = w.router();
  await r.enqueue('CA1', w.queue.id);
  w.clock.advance(48_000);
  t.same(await w.queues.figures(w.queue), { size: 1, longestWaitSeconds: 48, agentsAvailable: 2 });
  t.notOk(await w.queues.deleteIfEmpty(w.queue), 'a caller waits');
  await r.leave('CA1');
  t.ok(await w.queues.deleteIfEmpty(w.queue));
  t.same(await w.queues.figures(sales), { size: 0, longestWaitSeconds: 0, agentsAvailable: 0 });
});

onEachBackend(t, 'agents: queues replaced whole, filters, on a call, delete refused while offered', async (t, db) => {
  const w = await acdWorld(db, { agents: 2 });
  const sales = await w.queues.create(w.accountId, 'QU1', settings);
  const a0 = (await w.agents.getForAccount(w.accountId, 'AG0'))!;
  t.same(a0.queueSids, ['QU0']);
  const moved = await w.agents.update(a0, { friendlyName: 'Sam', trunkId: a0.trunkId, queueIds: [sales.id, w.queue.id, sales.id], status: 'break', breakReason: 'lunch' });
  t.match(moved, { friendlyName: 'Sam', queueSids: ['QU0', 'QU1'], status: 'break', breakReason: 'lunch' });
  const list = (filter: { queueId?: number; status?: 'available' | 'break' | 'offline' }) => w.agents.listForAccount(w.accountId, filter, { beforeId: null, limit: 10 });
  t.same((await list({})).map((a) => a.sid), ['AG1', 'AG0'], 'newest first');
  t.same((await list({ status: 'break' })).map((a) => a.sid), ['AG0']);
  t.same((await list({ queueId: sales.id })).map((a) => a.sid), ['AG0']);
  t.same((await w.agents.listForAccount(w.accountId, {}, { beforeId: a0.id + 1, limit: 1 })).map((a) => a.sid), ['AG0'], 'a page below an id');
  const r = w.router();
  await r.enqueue('CA1', w.queue.id);
  const offer = (await r.reserveNext(w.queue.id, () => true))!;
  const offered = (await w.agents.getForAccount(w.accountId, offer.agentSid))!;
  t.notOk(await w.agents.deleteIfFree(offered), 'reserved: not deleted');
  t.equal(await w.agents.onCall(w.accountId, 'CA1'), undefined, 'reserved is not on the call yet');
  await r.ringing(offer);
  await r.answered(offer);
  t.match(await w.agents.onCall(w.accountId, 'CA1'), { sid: offer.agentSid, activity: 'busy', queueSids: ['QU0'] });
  t.ok(await w.agents.deleteIfFree(moved), 'an idle agent is deleted');
});

onEachBackend(t, 'dispositions oldest first; lead campaigns put, replaced, named by caller ID, deleted', async (t, db) => {
  const w = await acdWorld(db, { agents: 0 });
  const dispositions = new DispositionRepo(db, w.clock);
  await dispositions.create(w.accountId, { sid: 'DP1', callSid: 'CA1', agentSid: null, disposition: 'sale', notes: null });
  await db.transaction((tx) => dispositions.create(w.accountId, { sid: 'DP2', callSid: 'CA1', agentSid: 'AG1', disposition: 'callback', notes: 'Tuesday' }, tx));
  t.same((await dispositions.forCall(w.accountId, 'CA1')).map((d) => d.sid), ['DP1', 'DP2']);
  const campaigns = new LeadCampaignRepo(db, w.clock);
  t.match(await campaigns.put(w.accountId, 'spring', { queueId: w.queue.id, callerId: '+15550100002' }), { name: 'spring', queueSid: 'QU0', callerId: '+15550100002' });
  t.match(await campaigns.put(w.accountId, 'spring', { queueId: null, callerId: '+15550100002' }), { queueId: null, queueSid: null }, 'put replaces');
  await campaigns.put(w.accountId, 'autumn', { queueId: w.queue.id, callerId: '+15550100002' });
  t.same(await campaigns.namesCallingFrom(w.accountId, '+15550100002'), ['autumn'], 'only campaigns with speed to lead');
  t.same((await campaigns.list(w.accountId)).map((c) => c.name), ['autumn', 'spring']);
  t.ok(await campaigns.delete(w.accountId, 'spring'));
  t.notOk(await campaigns.delete(w.accountId, 'spring'));
});
