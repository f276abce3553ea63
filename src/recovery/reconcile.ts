import { existsSync } from 'node:fs';
import type { CallServices, CallStore } from '../calls/services.js';
import type { ConferenceService } from '../conferences/service.js';
import type { CallRecord } from '../store/calls.js';
import type { RecordingRecord } from '../store/recordings.js';
import { sendStatusCallback, type CallbackSink } from '../calls/status-callback.js';
import { sendRecordingCallback } from '../calls/recording-callback.js';
import { finishTranscription, type RecordingTranscriber } from '../calls/transcription.js';

const LOST_TRANSCRIPTION: RecordingTranscriber = { transcribe: async () => ({ error: 'the control plane transcribing it stopped before the words came back' }) };
import { deadInstances, type Instance, type InstanceRepo, type Liveness } from './instances.js';
import { finalCallbacks } from './final-callbacks.js';
import { repairWavHeader } from './wav-repair.js';

export const RESTART_CAUSE = 'platform-restart';

/** What recovery works with: a call's services, the instance table, and the conferences a lost call leaves. */
export type RecoveryServices = CallServices & { store: CallStore & { instances: InstanceRepo }; conferences: Pick<ConferenceService, 'settleLostCall'> };

export interface Reconciled {
  /** The instances found dead (null: rows from before instances were recorded). */
  owners: Array<string | null>;
  calls: string[];
  recordings: string[];
  /** Status and recording callbacks of the finalized calls, sent after the database work (awaited by close). */
  callbacks: Promise<void>;
}

/**
 * Finishes what dead control-plane instances left open: their channels on the engine are hung up, their calls
 * get a final status (completed if answered, else failed; cause platform-restart; ended at the owner's last
 * heartbeat), one hangup event each and the status callbacks the call owes, and their recordings are closed
 * (header repaired) and marked; conferences they were in are left, and completed when nobody is left. A dead
 * instance is claimed by one survivor (claimDead) and every row by a conditional update, so when several instances
 * reconcile at once each dead instance is handled, and each call finished and announced, exactly once.
 */
export async function reconcileDeadInstances(services: RecoveryServices, liveness: Liveness): Promise<Reconciled> {
  const { store, log } = services;
  const claimed = await claimDead(services, liveness);
  const known = new Set((await store.instances.list()).map((i) => i.id));
  const lastBeat = new Map<string | null, number>(claimed.map((i) => [i.id, Date.parse(i.beatAt)]));
  // Besides the instances claimed here: rows whose owner left no instance row (rows from before instances were
  // recorded, or a claimant that removed the row), finished row by row under the same conditional updates.
  const open = new Set([...await store.calls.openOwners(), ...await store.recordings.openOwners()]);
  const owners = [...open].filter((o) => o === null || !known.has(o));
  for (const o of claimed) if (!owners.includes(o.id)) owners.push(o.id);
  const none: Reconciled = { owners: [], calls: [], recordings: [], callbacks: Promise.resolve() };
  if (owners.length === 0) return none;

  const tagged = owners.filter((o): o is string => o !== null);
  const refs: string[] = [];
  for (const o of owners) {
    for (const c of await store.calls.openOf(o)) {
      const ref = await store.calls.orphanRef(c.sid);
      if (ref !== null) refs.push(ref);
    }
  }
  await services.engine.releaseOrphans(tagged, refs).catch((err: unknown) => log.warn({ err, owners: tagged }, 'could not release the engine calls of dead instances'));

  const calls: CallRecord[] = [];
  const recordings: RecordingRecord[] = [];
  for (const owner of owners) {
    for (const call of await store.calls.openOf(owner)) {
      const done = await finishCall(services, call, await endOf(services, call, lastBeat.get(owner)), owner);
      if (done) calls.push(done);
    }
    for (const rec of await store.recordings.openOf(owner)) {
      const done = await closeRecording(services, rec, lastBeat.get(owner) ?? liveness.nowMs);
      if (done) recordings.push(done);
    }
    // Words the dead process was waiting for are lost; a message's voicemail-left event it held back is sent without them.
    for (const rec of await store.recordings.transcribingOf(owner)) await finishTranscription(services, rec, LOST_TRANSCRIPTION, null);
  }
  for (const o of claimed) await store.instances.remove(o.id);
  if (calls.length + recordings.length > 0) log.warn({ owners, calls: calls.length, recordings: recordings.length }, 'finished the calls and recordings of dead instances');
  return { owners, calls: calls.map((c) => c.sid), recordings: recordings.map((r) => r.sid), callbacks: sendCallbacks(services, calls, recordings) };
}

/**
 * The dead instances this survivor is to finish: each claimed by a conditional update, so when several survivors
 * sweep at once (several nodes on one PostgreSQL database) each dead instance is finished by one of them. A claim
 * held by a survivor that died too is taken over; one held by a living survivor is left to it.
 */
async function claimDead({ store }: RecoveryServices, liveness: Liveness): Promise<Instance[]> {
  const instances = await store.instances.list();
  const dead = deadInstances(instances, liveness);
  const living = new Set(instances.filter((i) => !dead.includes(i)).map((i) => i.id));
  const claimed: Instance[] = [];
  for (const i of dead) {
    const free = i.reconciledBy === null || i.reconciledBy === liveness.self || !living.has(i.reconciledBy);
    if (free && await store.instances.claim(i, liveness.self)) claimed.push(i);
  }
  return claimed;
}

/** The owner's last heartbeat; without one (rows older than heartbeats), the call's last recorded activity. */
async function endOf({ store }: RecoveryServices, call: CallRecord, beatMs: number | undefined): Promise<number> {
  const started = Date.parse(call.answeredAt ?? call.createdAt);
  if (beatMs !== undefined) return Math.max(beatMs, started);
  const last = await store.calls.lastActivity(call.sid);
  return Math.max(last ? Date.parse(last) : started, started);
}

function finishCall(services: RecoveryServices, call: CallRecord, endMs: number, owner: string | null): Promise<CallRecord | null> {
  const { store, events } = services;
  const status = call.answeredAt ? 'completed' : 'failed';
  const duration = call.answeredAt ? Math.max(0, Math.round((endMs - Date.parse(call.answeredAt)) / 1000)) : 0;
  return store.sql.transaction(async (tx) => {
    const done = await store.calls.finishLost(call.sid, { status, endedAt: new Date(endMs).toISOString(), duration, cause: RESTART_CAUSE }, tx);
    if (!done) return null;
    await events.emit({
      type: 'hangup', accountId: done.accountId, callSid: done.sid,
      data: { from: done.from, to: done.to, direction: done.direction, duration: done.duration, disposition: status, cause: RESTART_CAUSE },
    }, tx);
    await store.calls.addTimeline(done.sid, 'reconciled', { previous_status: call.status, status, cause: RESTART_CAUSE, instance: owner }, tx);
    await services.conferences.settleLostCall(done.sid, tx);
    return done;
  });
}

async function closeRecording(services: RecoveryServices, rec: RecordingRecord, endMs: number): Promise<RecordingRecord | null> {
  const { store } = services;
  const audio = existsSync(rec.file) ? repairWavHeader(rec.file) : null;
  const done = await store.recordings.closeLost(rec.sid, audio?.durationMs ?? null, new Date(endMs).toISOString());
  if (!done) return null;
  await store.calls.addTimeline(rec.callSid, 'recording-recovered', {
    recording_sid: rec.sid, status: done.status, duration_ms: audio?.durationMs ?? null, header_repaired: audio?.repaired ?? false,
  });
  return done;
}

const sinkFor = (services: RecoveryServices, accountId: number, callSid: string): CallbackSink => ({
  services, accountId, timeline: (kind, detail) => services.store.calls.addTimeline(callSid, kind, detail),
});

async function sendCallbacks(services: RecoveryServices, calls: CallRecord[], recordings: RecordingRecord[]): Promise<void> {
  const now = services.clock.now();
  const owed = await Promise.all(calls.map(async (c) => ({ c, callbacks: await finalCallbacks(services.store, c, now) })));
  await Promise.all([
    ...recordings.filter((r) => r.status === 'completed').map((r) => sendRecordingCallback(sinkFor(services, r.accountId, r.callSid), r)),
    ...owed.flatMap(({ c, callbacks }) => callbacks.map((cb) => sendStatusCallback(sinkFor(services, c.accountId, c.sid), cb.url, cb.fields, cb.method))),
  ]);
}
