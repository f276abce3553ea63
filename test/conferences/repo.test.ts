import t from 'tap';
import { FakeClock } from '../../src/clock.js';
import type { NewConference } from '../../src/conferences/repo.js';
import { openTestStore, tempDir } from '../helpers/harness.js';
import { ConferenceService, EMPTY_CONFERENCE_WAIT_MS } from '../../src/conferences/service.js';
import { holdDocuments } from '../../src/flows/hold-documents.js';

async function setup(t: Parameters<typeof tempDir>[0]) {
  const clock = new FakeClock();
  const store = await openTestStore(t, clock);
  const account = await store.accounts.create({ name: 'a', trunking: false, trunkCapacity: 1 });
  let n = 0;
  const conf = (name: string, accountId = account.id): NewConference => ({
    sid: `CF${String(++n).padStart(32, '0')}`, accountId, friendlyName: name, record: false, maxParticipants: 250,
    statusCallback: null, statusCallbackMethod: 'POST', statusCallbackEvents: ['start', 'end'],
  });
  return { clock, store, repo: store.conferences, account, conf };
}

t.test('a friendly name addresses one open conference; once it completes, the name starts a new one', async (t) => {
  const { repo, conf, store } = await setup(t);
  const first = await repo.openOrCreate(conf('support'));
  t.equal(first.created, true);
  t.equal(first.conference.status, 'init');
  t.same(first.conference.statusCallbackEvents, ['start', 'end']);
  const again = await repo.openOrCreate(conf('support'));
  t.equal(again.created, false, 'joining the same name finds it');
  t.equal(again.conference.sid, first.conference.sid);
  const other = await store.accounts.create({ name: 'b', trunking: false, trunkCapacity: 1 });
  t.not((await repo.openOrCreate(conf('support', other.id))).conference.sid, first.conference.sid, 'names are per account');

  t.equal(await repo.markStarted(first.conference.sid), true);
  t.equal(await repo.markStarted(first.conference.sid), false, 'starts once');
  t.equal(await repo.markCompleted(first.conference.sid, 'last-participant-left'), true);
  t.equal(await repo.markCompleted(first.conference.sid, 'api'), false, 'ends once');
  t.match(await repo.get(first.conference.sid), { status: 'completed', endReason: 'last-participant-left' });
  const next = await repo.openOrCreate(conf('support'));
  t.equal(next.created, true);
  t.not(next.conference.sid, first.conference.sid, 'a new sid for the same name');
});

t.test('lists newest first with filters and a cursor', async (t) => {
  const { repo, conf, account } = await setup(t);
  const sids = [];
  for (const name of ['a', 'b', 'c', 'd']) sids.push((await repo.openOrCreate(conf(name))).conference);
  await repo.markCompleted(sids[1]!.sid, 'api');
  t.same((await repo.list(account.id, { beforeId: null, limit: 10 })).map((c) => c.friendlyName), ['d', 'c', 'b', 'a']);
  const page1 = await repo.list(account.id, { beforeId: null, limit: 2 });
  t.same((await repo.list(account.id, { beforeId: page1.at(-1)!.id, limit: 2 })).map((c) => c.friendlyName), ['b', 'a']);
  t.same((await repo.list(account.id, { status: 'completed', beforeId: null, limit: 10 })).map((c) => c.friendlyName), ['b']);
  t.same((await repo.list(account.id, { friendlyName: 'c', beforeId: null, limit: 10 })).map((c) => c.friendlyName), ['c']);
});

t.test('participants: forward-only status, counted only while in progress, flags updated', async (t) => {
  const { repo, conf, account } = await setup(t);
  const { conference } = await repo.openOrCreate(conf('room'));
  const base = { conferenceSid: conference.sid, accountId: account.id, muted: false, startConferenceOnEnter: true, endConferenceOnExit: false, statusCallback: null };
  await repo.addParticipant({ ...base, callSid: 'CA1' });
  await repo.addParticipant({ ...base, callSid: 'CA2', muted: true });
  t.equal(await repo.countInProgress(conference.sid), 0, 'connecting legs are not counted');
  t.equal(await repo.setParticipantStatus(conference.sid, 'CA1', 'in-progress'), true);
  t.equal(await repo.countInProgress(conference.sid), 1);
  t.equal(await repo.setParticipantStatus(conference.sid, 'CA1', 'completed'), true);
  t.equal(await repo.setParticipantStatus(conference.sid, 'CA1', 'in-progress'), false, 'never back');
  t.equal(await repo.countInProgress(conference.sid), 0);
  t.match(await repo.updateParticipant(conference.sid, 'CA2', { hold: true, holdUrl: 'https://x.example/h.wav', coaching: true, callSidToCoach: 'CA1' }), {
    before: { muted: true, hold: false, holdUrl: null, coaching: false, callSidToCoach: null },
    after: { muted: true, hold: true, holdUrl: 'https://x.example/h.wav', coaching: true, callSidToCoach: 'CA1' },
  }, 'the change, with the state before it');
  t.same((await repo.participants(conference.sid, { openOnly: true })).map((p) => p.callSid), ['CA2']);
  t.same((await repo.participants(conference.sid)).map((p) => p.callSid), ['CA1', 'CA2']);
  t.equal(await repo.nextSequence(conference.sid), 1);
  t.equal(await repo.nextSequence(conference.sid), 2);
});

t.test('a conference nobody connects to or joins within its wait window ends by itself; one with a participant does not', async (t) => {
  const { clock, store, account } = await setup(t);
  const sent: Array<Record<string, string>> = [];
  const service = new ConferenceService({ store, clock, holdAudio: holdDocuments }, { enqueue: async (c) => sent.push(c.fields) }, { file: '/dev/null' } as never);
  t.teardown(() => service.stop());
  const cb = { url: 'https://app.example.com/conf', method: 'POST' as const, events: ['end'] };
  const empty = await service.openByName(account.id, 'left-empty', { maxParticipants: 250, record: false, statusCallback: cb });
  const used = await service.openByName(account.id, 'in-use', { maxParticipants: 250, record: false });
  await store.conferences.addParticipant({
    conferenceSid: used.sid, callSid: `CA${'1'.repeat(32)}`, accountId: account.id, muted: false, startConferenceOnEnter: true, endConferenceOnExit: false, statusCallback: null,
  });
  await clock.advance(EMPTY_CONFERENCE_WAIT_MS - 1_000);
  t.equal((await store.conferences.get(empty.sid))!.status, 'init', 'still open inside the window');
  await clock.advance(1_001);
  t.match(await store.conferences.get(empty.sid), { status: 'completed', endReason: 'no-participant-within-wait' });
  t.match(sent, [{ StatusCallbackEvent: 'conference-end', ConferenceSid: empty.sid, Reason: /no-participant-within-wait/ }], 'its conference-end callback says why');
  t.equal((await store.conferences.get(used.sid))!.status, 'init', 'a conference with a participant connecting goes on');

  // A process that died between creating a room and adding to it: the next start ends it.
  const leftover = (await store.conferences.openOrCreate({
    sid: `CF${'9'.repeat(32)}`, accountId: account.id, friendlyName: 'leftover', record: false, maxParticipants: 250, statusCallback: null, statusCallbackMethod: 'POST', statusCallbackEvents: [],
  })).conference;
  await clock.advance(EMPTY_CONFERENCE_WAIT_MS + 1);
  const next = new ConferenceService({ store, clock, holdAudio: holdDocuments }, { enqueue: async () => undefined }, { file: '/dev/null' } as never);
  next.start();
  await clock.advance(0);
  t.match(await store.conferences.get(leftover.sid), { status: 'completed', endReason: 'no-participant-within-wait' });
});
