// The reconciler against rows other instances left: which peers count as dead (silent, or on this host with
// their process gone), what a finished call and recording look like, and that two reconcilers racing over the
// same dead instance finish and announce each call once.
import t from 'tap';
import { writeFileSync, readFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { hostname } from 'node:os';
import { startHarness } from '../helpers/harness.js';
import { FakeClock } from '../../src/clock.js';
import { deadInstances, type Instance } from '../../src/recovery/instances.js';
import { reconcileDeadInstances } from '../../src/recovery/reconcile.js';
import { repairWavHeader } from '../../src/recovery/wav-repair.js';
import { decodeWav, encodeWav } from '../../src/media/wav.js';
import type { LifecycleEvent } from '../../src/events/lifecycle.js';

const at = (ms: number) => new Date(ms).toISOString();

t.test('dead peers: silent for the stale period, or on this host with the pid gone', async (t) => {
  const now = 1_000_000;
  const peer = (id: string, host: string, pid: number, beatAgoMs: number): Instance => ({ id, host, pid, startedAt: at(0), beatAt: at(now - beatAgoMs), reconciledBy: null, address: null, drainingAt: null });
  const dead = deadInstances([
    peer('self', 'h1', 1, 60_000), peer('fresh-remote', 'h2', 2, 1_000), peer('stale-remote', 'h2', 3, 15_000),
    peer('local-alive', 'h1', 4, 1_000), peer('local-gone', 'h1', 5, 1_000),
  ], { self: 'self', host: 'h1', nowMs: now, staleMs: 15_000, pidAlive: (pid) => pid !== 5 });
  t.same(dead.map((i) => i.id), ['stale-remote', 'local-gone']);
});

t.test('a WAV its writer never finished is repaired from the file length', async (t) => {
  const dir = t.testdir();
  const file = path.join(dir, 'cut.wav');
  const full = encodeWav({ sampleRate: 8000, channels: [new Float32Array(8000).fill(0.5)] });
  full.writeUInt32LE(0, 4);
  full.writeUInt32LE(0, 40);
  writeFileSync(file, full);
  t.same(repairWavHeader(file), { durationMs: 1000, repaired: true });
  t.equal(decodeWav(readFileSync(file)).channels[0]!.length, 8000, 'every sample decodes after the repair');
  t.same(repairWavHeader(file), { durationMs: 1000, repaired: false }, 'a sound header is left alone');
  writeFileSync(path.join(dir, 'empty.wav'), full.subarray(0, 44));
  t.equal(repairWavHeader(path.join(dir, 'empty.wav')), null, 'no audio: nothing to keep');
  t.equal(repairWavHeader(path.join(dir, 'missing.wav')), null);
});

/** A server whose peer 'deadpeer' stopped beating 20 s ago while 'livepeer' beats on; calls owned by either. */
async function peersScene(t: Parameters<typeof startHarness>[0]) {
  const clock = new FakeClock(Date.parse('2026-11-24T10:00:00Z'));
  const h = await startHarness(t, { clock });
  const { id: accountId } = await h.account();
  const { store } = h;
  const deadBeat = clock.now() - 20_000;
  const insertInstance = 'INSERT INTO instances (id, host, pid, started_at, beat_at) VALUES (?, ?, ?, ?, ?)';
  await store.sql.run(insertInstance, ['deadpeer', 'other-host', 1, at(deadBeat - 60_000), at(deadBeat)]);
  await store.sql.run(insertInstance, ['livepeer', 'other-host', 2, at(clock.now() - 60_000), at(clock.now() - 1_000)]);
  const insertCall = (sid: string, owner: string, answered = true) => store.sql.run(`INSERT INTO calls (sid, account_id, direction, from_addr, to_addr, status, created_at, answered_at, owner)
    VALUES (?, ?, 'outbound-api', '+15550001000', '+15557770001', ?, ?, ?, ?)`, [sid, accountId, answered ? 'in-progress' : 'ringing', at(deadBeat - 40_000), answered ? at(deadBeat - 30_000) : null, owner]);
  const liveness = { self: store.instanceId, host: hostname(), nowMs: clock.now(), staleMs: 15_000, pidAlive: () => true };
  return { h, store, accountId, deadBeat, insertCall, liveness };
}

t.test('a dead peer\'s calls and recordings are finished once, even by two reconcilers at once', async (t) => {
  const { h, store, accountId, deadBeat, insertCall, liveness } = await peersScene(t);
  await insertCall('CAanswered', 'deadpeer', true);
  await insertCall('CAringing', 'deadpeer', false);
  await insertCall('CAlive', 'livepeer', true);
  const recFile = path.join(h.dataDir, 'recordings', String(accountId), 'REcut.wav');
  mkdirSync(path.dirname(recFile), { recursive: true });
  const wav = encodeWav({ sampleRate: 8000, channels: [new Float32Array(16000).fill(0.25)] });
  wav.writeUInt32LE(0, 40);
  writeFileSync(recFile, wav);
  await store.sql.run(`INSERT INTO recordings (sid, account_id, call_sid, source, status, tracks, channels, file, created_at, owner)
    VALUES ('REcut', ?, 'CAanswered', 'call', 'in-progress', 'both', 1, ?, ?, 'deadpeer')`, [accountId, recFile, at(deadBeat - 30_000)]);

  // The answered call's far end as the engine left it: handed back to the engine to hang up (a BYE to the caller).
  await store.sql.run("UPDATE calls SET orphan_ref = 'dialog-1a2b-3c4d' WHERE sid = 'CAanswered'");

  const emitted: LifecycleEvent[] = [];
  const released: Array<[readonly string[], readonly string[]]> = [];
  const engine = Object.assign(Object.create(h.app.callServices.engine) as typeof h.app.callServices.engine, {
    releaseOrphans: async (ids: readonly string[], refs: readonly string[]) => { released.push([ids, refs]); },
  });
  const services = { ...h.app.callServices, engine, events: { emit: async (e: LifecycleEvent) => { emitted.push(e); } } };
  const [a, b] = await Promise.all([reconcileDeadInstances(services, liveness), reconcileDeadInstances(services, liveness)]);
  // Both reconcilers here are one instance (one id), so each may ask; what they ask for is the point.
  t.ok(released.length > 0, 'the engine is asked to release the dead peer\'s calls');
  t.same(new Set(released.map((r) => JSON.stringify(r))), new Set([JSON.stringify([['deadpeer'], ['dialog-1a2b-3c4d']])]), 'by the dead instance and its calls\' far-end dialogs');
  await Promise.all([a.callbacks, b.callbacks]);
  t.same([...a.calls, ...b.calls].sort(), ['CAanswered', 'CAringing'], 'each call finished by exactly one of them');

  const answered = (await store.calls.get('CAanswered'))!;
  t.match(answered, { status: 'completed', hangupCause: 'platform-restart', endedAt: at(deadBeat), duration: 30 });
  t.match(await store.calls.get('CAringing'), { status: 'failed', hangupCause: 'platform-restart', duration: 0 }, 'never answered: failed');
  t.match(await store.calls.get('CAlive'), { status: 'in-progress', endedAt: null }, 'a live peer\'s call is left alone');
  t.same(emitted.map((e) => [e.type, e.callSid]).sort(), [['hangup', 'CAanswered'], ['hangup', 'CAringing']], 'one hangup event each');
  t.match(emitted.find((e) => e.callSid === 'CAanswered')?.data, { disposition: 'completed', cause: 'platform-restart', duration: 30 });
  t.match(await store.recordings.get('REcut'), { status: 'completed', durationMs: 2000 }, 'the recording closed with its real length');
  t.equal(decodeWav(readFileSync(recFile)).channels[0]!.length, 16000, 'and playable');
  t.same((await store.instances.list()).map((i) => i.id).sort(), ['livepeer', store.instanceId].sort(), 'the dead peer is forgotten');

  const again = await reconcileDeadInstances(services, liveness);
  t.same(again.calls, [], 'nothing is finished twice');
});

t.test("a message a dead peer was transcribing: its held-back voicemail-left event goes out once, without words", async (t) => {
  const { store, accountId, deadBeat, insertCall, liveness, h } = await peersScene(t);
  await insertCall('CAmessage', 'livepeer', true);
  await store.sql.run(`INSERT INTO recordings (sid, account_id, call_sid, source, status, tracks, channels, file, duration_ms, created_at, completed_at, owner,
    transcription_status, transcription_holds_event) VALUES ('REheld', ?, 'CAmessage', 'record-verb', 'completed', 'inbound', 1, '/gone.wav', 4000, ?, ?, 'deadpeer', 'in-progress', 1)`,
  [accountId, at(deadBeat - 10_000), at(deadBeat - 5_000)]);
  const emitted: LifecycleEvent[] = [];
  const services = { ...h.app.callServices, events: { emit: async (e: LifecycleEvent) => { emitted.push(e); } } };
  await Promise.all([reconcileDeadInstances(services, liveness), reconcileDeadInstances(services, liveness)]);
  t.same(emitted.map((e) => [e.type, e.callSid]), [['voicemail-left', 'CAmessage']], 'one event');
  t.match(emitted[0]!.data, { recording_sid: 'REheld', duration: 4, source: 'record-verb', transcription_text: null });
  t.match((await store.recordings.get('REheld'))!.transcription, { status: 'failed', error: /stopped before the words came back/ });
});

t.test('a dead peer\'s conference participants leave, and a room left empty completes with its callbacks', async (t) => {
  const { h, store, accountId, insertCall, liveness } = await peersScene(t);
  const room = async (name: string, sid: string) => (await store.conferences.openOrCreate({
    sid, accountId, friendlyName: name, record: false, maxParticipants: 250,
    statusCallback: 'https://hooks.example.com/conf', statusCallbackMethod: 'POST', statusCallbackEvents: [],
  })).conference;
  const join = async (conferenceSid: string, callSid: string) => {
    await store.conferences.addParticipant({ conferenceSid, callSid, accountId, muted: false, startConferenceOnEnter: true, endConferenceOnExit: false, statusCallback: null });
    await store.conferences.setParticipantStatus(conferenceSid, callSid, 'in-progress');
  };
  const lost = await room('lost', `CF${'1'.padStart(32, '0')}`);
  const shared = await room('shared', `CF${'2'.padStart(32, '0')}`);
  await store.conferences.markStarted(lost.sid);
  await store.conferences.markStarted(shared.sid);
  for (const [sid, owner, conf] of [['CAa', 'deadpeer', lost], ['CAb', 'deadpeer', lost], ['CAc', 'deadpeer', shared], ['CAd', 'livepeer', shared]] as const) {
    await insertCall(sid, owner);
    await join(conf.sid, sid);
  }

  const done = await reconcileDeadInstances(h.app.callServices, liveness);
  await done.callbacks;
  t.same(done.calls.sort(), ['CAa', 'CAb', 'CAc']);
  t.match(await store.conferences.get(lost.sid), { status: 'completed', endReason: 'platform-restart' }, 'the room whose every call died completes');
  t.same((await store.conferences.participants(lost.sid)).map((p) => p.status), ['completed', 'completed']);
  t.match(await store.conferences.get(shared.sid), { status: 'in-progress', endReason: null }, 'a room with a live participant goes on');
  t.same((await store.conferences.participants(shared.sid)).map((p) => [p.callSid, p.status]), [['CAc', 'completed'], ['CAd', 'in-progress']]);
  const queued = await store.sql.all<{ stream: string; fields: string }>('SELECT stream, fields FROM callback_outbox ORDER BY id');
  t.same(queued.map((q) => [q.stream, JSON.parse(q.fields).StatusCallbackEvent, JSON.parse(q.fields).CallSid ?? null]), [
    [lost.sid, 'participant-leave', 'CAa'], [lost.sid, 'participant-leave', 'CAb'], [lost.sid, 'conference-end', null], [shared.sid, 'participant-leave', 'CAc'],
  ], 'one callback per change, queued with it');
  t.equal(JSON.parse(queued[2]!.fields).Reason, 'platform-restart');
});
