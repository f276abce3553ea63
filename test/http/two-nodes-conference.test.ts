// A conference with members on two control planes (docs/cluster.md, "Conferences and queues across nodes"): a
// member waiting on A stops waiting when a member joining through B starts the conference; an announcement asked of
// B once B has no member in the room is made by A; and ending it through B hangs up A's member too. Two whole control planes (sandbox engines) on one PostgreSQL database; the start and
// the end reach A as signals (NOTIFY).
import t from 'tap';
import type { Harness } from '../helpers/harness.js';
import { twoNodesWithNumber } from '../helpers/two-nodes.js';
import { until } from '../helpers/waits.js';
import { startMediaOrigin, toneWav } from '../helpers/media-origin.js';

const DID = '+15550001000';
const conference = (startOnEnter: boolean) =>
  `<Response><Dial><Conference startConferenceOnEnter="${startOnEnter}">Standup</Conference></Dial></Response>`;

t.test('a conference across two nodes: started and ended by the other node', async (t) => {
  const cluster = await twoNodesWithNumber(t, { env: { RINGBASE_DEV_ALLOW_LOCAL_TARGETS: '1', RINGBASE_TRUSTED_PROXIES: '127.0.0.1' } }, DID);
  if (!cluster) return;
  const { a, b, account, key } = cluster;
  const origin = await startMediaOrigin(t);
  origin.on('/announce.wav', { body: toneWav(1), headers: { 'content-type': 'audio/wav' } });
  const join = async (via: Harness, to: string, startOnEnter: boolean): Promise<string> => {
    const placed = await via.request('POST', '/api/calls', { key, body: { from: DID, to, markup: conference(startOnEnter) } });
    t.equal(placed.status, 201);
    return placed.body.sid as string;
  };
  const timeline = async (sid: string) => (await a.store.calls.timeline(sid)).map((e) => e.kind);

  const waiting = await join(a, '+15550004441', false);
  await until('the first member in the conference, waiting', 10_000, async () => (await timeline(waiting)).includes('conference-joined'));
  const conf = (await a.store.conferences.openByName(account.id, 'Standup'))!;
  t.equal(conf.status, 'init', 'not started: its only member waits');
  t.equal((await a.store.calls.get(waiting))?.owner, a.store.instanceId, 'the waiting member is carried by A');

  const starter = await join(b, '+15550004442', true);
  await until('the conference started', 10_000, async () => (await a.store.conferences.get(conf.sid))?.status === 'in-progress');
  t.equal((await a.store.calls.get(starter))?.owner, b.store.instanceId, 'the member who starts it is carried by B');
  await until("A's member stops waiting", 10_000, async () => (await timeline(waiting)).includes('conference-started'));
  t.pass("A's waiting member was told of the start B made");

  // B's member leaves; the conference goes on with A's. An announcement asked of B, which has no member in the room
  // now, is made by A.
  t.equal((await b.request('POST', `/api/calls/${starter}`, { key, body: { status: 'completed' } })).status, 200);
  await until("B's member gone", 10_000, async () => (await a.store.conferences.participant(conf.sid, starter))?.status === 'completed');
  t.equal((await a.store.conferences.get(conf.sid))?.status, 'in-progress', 'the conference goes on with the member on A');
  const v1 = (via: Harness, body: Record<string, string>) =>
    via.request('POST', `/v1/conferences/${conf.sid}`, { key, body, headers: { 'x-forwarded-proto': 'https' } });
  const announced = await v1(b, { announce_url: `${origin.origin}/announce.wav` });
  t.equal(announced.status, 200, 'an announcement asked of B');
  const party = a.engine.partyCalls('+15550004441').at(-1)!;
  await until("A's member hears it", 10_000, async () => party.transcript.some((e) => e.type === 'heard-play' && e.url.includes('announce.wav')));
  t.pass("made by A, through its member in the room");

  const ended = await v1(b, { status: 'completed' });
  t.equal(ended.status, 200, 'the conference ended through B');
  await until("A's member hung up", 10_000, async () => (await a.store.calls.get(waiting))?.endedAt !== null);
  t.match(await a.store.calls.get(waiting), { status: 'completed', hangupCause: 'conference-ended' }, "A's member hung up by A, cause conference-ended");
  t.match(await a.store.conferences.get(conf.sid), { status: 'completed', endReason: 'conference-ended-via-api' });
});
