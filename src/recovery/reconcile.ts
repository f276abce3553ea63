import { existsSync } from 'node:fs';
import type { CallServices } from '../calls/services.js';
import type { CallRecord } from '../store/calls.js';
import type { RecordingRecord } from '../store/recordings.js';
import { sendStatusCallback, type CallbackSink } from '../calls/status-callback.js';
import { sendRecordingCallback } from '../calls/recording-callback.js';
import { deadInstances, type Liveness } from './instances.js';
import { finalCallbacks } from './final-callbacks.js';
import { repairWavHeader } from './wav-repair.js';

export const RESTART_CAUSE = 'platform-restart';

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
 * (header repaired) and marked; conferences they were in are left, and completed when nobody is left. Every row is claimed by a conditional update, so when several instances
 * reconcile at once each call is finished, and announced, exactly once.
 */
export async function reconcileDeadInstances(services: CallServices, liveness: Liveness): Promise<Reconciled> {
  const { store, log } = services;
  const instances = store.instances.list();
  const dead = deadInstances(instances, liveness);
  const living = new Set(instances.filter((i) => !dead.includes(i)).map((i) => i.id));
  const lastBeat = new Map<string | null, number>(dead.map((i) => [i.id, Date.parse(i.beatAt)]));
  const owners = openOwners(services).filter((o) => o === null || !living.has(o));
  for (const o of dead) if (!owners.includes(o.id)) owners.push(o.id);
  const none: Reconciled = { owners: [], calls: [], recordings: [], callbacks: Promise.resolve() };
  if (owners.length === 0) return none;

  const tagged = owners.filter((o): o is string => o !== null);
  const refs = owners.flatMap((o) => openCalls(services, o).flatMap((c) => orphanRefOf(services, c.sid) ?? []));
  await services.engine.releaseOrphans(tagged, refs).catch((err: unknown) => log.warn({ err, owners: tagged }, 'could not release the engine calls of dead instances'));

  const calls: CallRecord[] = [];
  const recordings: RecordingRecord[] = [];
  for (const owner of owners) {
    for (const call of openCalls(services, owner)) {
      const done = finishCall(services, call, endOf(services, call, lastBeat.get(owner)), owner);
      if (done) calls.push(done);
    }
    for (const rec of openRecordings(services, owner)) {
      const done = closeRecording(services, rec, lastBeat.get(owner) ?? liveness.nowMs);
      if (done) recordings.push(done);
    }
  }
  for (const o of dead) store.instances.remove(o.id);
  if (calls.length + recordings.length > 0) log.warn({ owners, calls: calls.length, recordings: recordings.length }, 'finished the calls and recordings of dead instances');
  return { owners, calls: calls.map((c) => c.sid), recordings: recordings.map((r) => r.sid), callbacks: sendCallbacks(services, calls, recordings) };
}

function openOwners({ store }: CallServices): Array<string | null> {
  return (store.db.prepare(`SELECT owner FROM calls WHERE ended_at IS NULL
    UNION SELECT owner FROM recordings WHERE status IN ('in-progress', 'paused')`).all() as Array<{ owner: string | null }>).map((r) => r.owner);
}

function openCalls({ store }: CallServices, owner: string | null): CallRecord[] {
  const rows = store.db.prepare('SELECT sid FROM calls WHERE ended_at IS NULL AND owner IS ?').all(owner) as Array<{ sid: string }>;
  return rows.map((r) => store.calls.get(r.sid)!);
}

function openRecordings({ store }: CallServices, owner: string | null): RecordingRecord[] {
  const rows = store.db.prepare("SELECT sid FROM recordings WHERE status IN ('in-progress', 'paused') AND owner IS ?").all(owner) as Array<{ sid: string }>;
  return rows.map((r) => store.recordings.get(r.sid)!);
}

function orphanRefOf({ store }: CallServices, sid: string): string | null {
  return (store.db.prepare('SELECT orphan_ref FROM calls WHERE sid = ?').get(sid) as { orphan_ref: string | null }).orphan_ref;
}

/** The owner's last heartbeat; without one (rows older than heartbeats), the call's last recorded activity. */
function endOf({ store }: CallServices, call: CallRecord, beatMs: number | undefined): number {
  const started = Date.parse(call.answeredAt ?? call.createdAt);
  if (beatMs !== undefined) return Math.max(beatMs, started);
  const last = store.db.prepare('SELECT MAX(at) AS at FROM call_timeline WHERE call_sid = ?').get(call.sid) as { at: string | null };
  return Math.max(last.at ? Date.parse(last.at) : started, started);
}

function finishCall(services: CallServices, call: CallRecord, endMs: number, owner: string | null): CallRecord | null {
  const { store, events } = services;
  const status = call.answeredAt ? 'completed' : 'failed';
  const duration = call.answeredAt ? Math.max(0, Math.round((endMs - Date.parse(call.answeredAt)) / 1000)) : 0;
  return store.db.transaction(() => {
    const claimed = store.db.prepare('UPDATE calls SET status = ?, ended_at = ?, duration = ?, hangup_cause = ? WHERE sid = ? AND ended_at IS NULL')
      .run(status, new Date(endMs).toISOString(), duration, RESTART_CAUSE, call.sid).changes === 1;
    if (!claimed) return null;
    const done = store.calls.get(call.sid)!;
    events.emit({
      type: 'hangup', accountId: done.accountId, callSid: done.sid,
      data: { from: done.from, to: done.to, direction: done.direction, duration: done.duration, disposition: status, cause: RESTART_CAUSE },
    });
    store.calls.addTimeline(done.sid, 'reconciled', { previous_status: call.status, status, cause: RESTART_CAUSE, instance: owner });
    services.conferences.settleLostCall(done.sid);
    return done;
  })();
}

function closeRecording(services: CallServices, rec: RecordingRecord, endMs: number): RecordingRecord | null {
  const { store } = services;
  const audio = existsSync(rec.file) ? repairWavHeader(rec.file) : null;
  const claimed = store.db.prepare(`UPDATE recordings SET status = ?, duration_ms = ?, completed_at = ? WHERE sid = ? AND status IN ('in-progress', 'paused')`)
    .run(audio ? 'completed' : 'failed', audio?.durationMs ?? null, new Date(endMs).toISOString(), rec.sid).changes === 1;
  if (!claimed) return null;
  store.calls.addTimeline(rec.callSid, 'recording-recovered', {
    recording_sid: rec.sid, status: audio ? 'completed' : 'failed', duration_ms: audio?.durationMs ?? null, header_repaired: audio?.repaired ?? false,
  });
  return store.recordings.get(rec.sid)!;
}

const sinkFor = (services: CallServices, accountId: number, callSid: string): CallbackSink => ({
  services, accountId, timeline: (kind, detail) => services.store.calls.addTimeline(callSid, kind, detail),
});

async function sendCallbacks(services: CallServices, calls: CallRecord[], recordings: RecordingRecord[]): Promise<void> {
  const now = services.clock.now();
  await Promise.all([
    ...recordings.filter((r) => r.status === 'completed').map((r) => sendRecordingCallback(sinkFor(services, r.accountId, r.callSid), r)),
    ...calls.flatMap((c) => finalCallbacks(services.store, c, now).map((cb) => sendStatusCallback(sinkFor(services, c.accountId, c.sid), cb.url, cb.fields, cb.method))),
  ]);
}
