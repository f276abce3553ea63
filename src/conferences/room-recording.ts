// A conference's recording: the room's mix, from its start to its end, stored as a recording resource listed under
// the conference (source 'conference').
import type { ConferenceMember } from '../engine/port.js';
import type { CallSession } from '../calls/session.js';
import type { Clock } from '../clock.js';
import type { RecordingRepo } from '../store/recordings.js';
import { newSid } from '../crypto/tokens.js';
import { makePrivate } from '../private-files.js';

export interface RoomRecording { sid: string; file: string; startedAt: number }

interface Deps { store: { recordings: RecordingRepo }; clock: Clock }

/** Starts recording the room through `member` (the leg of `by`, the call that started it); null when the engine refused. */
export async function startRoomRecording(member: ConferenceMember, by: CallSession, conferenceSid: string, d: Deps): Promise<RoomRecording | null> {
  const sid = newSid('RE');
  const file = by.recordingFile(sid);
  try {
    await member.recordRoom(file);
  } catch (err) {
    by.timeline('conference-recording-failed', { conference_sid: conferenceSid, reason: (err as Error).message });
    return null;
  }
  await d.store.recordings.create({
    sid, accountId: by.accountId, callSid: by.sid, conferenceSid, source: 'conference', tracks: 'both', channels: 1, file, callbackUrl: null,
  });
  return { sid, file, startedAt: d.clock.now() };
}

/** Finishes the file through `anyone` still in the room (else the room ended and closed it), and the resource. */
export async function stopRoomRecording(rec: RoomRecording, anyone: ConferenceMember | undefined, d: Deps): Promise<void> {
  if (anyone) await anyone.stopRoomRecording(rec.file).catch(() => undefined);
  makePrivate(rec.file);
  await d.store.recordings.complete(rec.sid, d.clock.now() - rec.startedAt);
}
