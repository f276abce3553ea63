// Conference lifecycle on top of the engine port's rooms: who is in which room, the conference and participant
// state machines (docs/conferences.md), waiting music before the start, mute/hold/coach/announce, ending, and the
// status callbacks each change owes (queued in the same transaction as the change).
import type { CallLeg, ConferenceMember, LocalMedia } from '../engine/port.js';
import { settledWithin, whenAborted } from '../waits.js';
import type { RecordingRepo } from '../store/recordings.js';
import type { CallSession } from '../calls/session.js';
import type { Clock, TimerHandle } from '../clock.js';
import type { HoldAudio, HoldOptions, HoldPlayback, HoldSource, HoldSourceResult } from '../calls/hold-audio.js';
import { newSid } from '../crypto/tokens.js';
import type { SqlDb, SqlQueries } from '../store/sql.js';
import type { Signals } from '../store/signals.js';
import type { Conference, ConferenceRepo, Participant, ParticipantChanges } from './repo.js';
import { startRoomRecording, stopRoomRecording, type RoomRecording } from './room-recording.js';
import { queueConferenceCallback, type CallbackQueue, type ConferenceEvent } from './callbacks.js';
import type { EndReason, JoinOptions, JoinOutcome, MarkupJoin } from './joins.js';

/**
 * How long a conference may exist with no participant connecting or in it before it ends by itself. Every way in
 * adds its participant at once, so only a failure between creating the room and adding someone leaves it empty.
 */
export const EMPTY_CONFERENCE_WAIT_MS = 60_000;

interface LiveMember {
  callSid: string; session: CallSession; leg: CallLeg; member: ConferenceMember; waiting: boolean; holding: HoldPlayback | null;
  /** Whom the engine was last told this member coaches (null: heard by everyone). */
  coaching: string | null;
  /** Resolves once the member's leave is stored (its participant row completed). */
  stored: Promise<void>;
}

/** How long ending a conference waits for its members' leaves to be stored. */
const LEAVES_STORED_MS = 5_000;
interface LiveRoom { members: Map<string, LiveMember>; ringing: Map<string, AbortController>; recording: RoomRecording | null }

/** A conference's wait and hold documents are posted its sid besides the call's fields. */
const holdOptions = (conferenceSid: string): HoldOptions => ({ params: () => ({ conference_sid: conferenceSid }) });

/** What a node tells the others about a conference (signals.ts): it started, or it ended. */
type RoomChange = 'started' | 'ended';

export class ConferenceService {
  readonly #rooms = new Map<string, LiveRoom>();
  readonly #emptyChecks = new Set<TimerHandle>();
  #unsubscribe: (() => void) | null = null;

  constructor(
    private readonly services: { store: { sql: SqlDb; conferences: ConferenceRepo; recordings: RecordingRepo; signals: Signals }; clock: Clock; holdAudio: HoldAudio },
    private readonly callbacks: CallbackQueue,
    private readonly beep: LocalMedia,
  ) {}

  get #repo() { return this.services.store.conferences; }

  /** The account's open conference of that name, created (`init`) when there is none. */
  async openByName(accountId: number, friendlyName: string, opts: Pick<MarkupJoin, 'maxParticipants' | 'record' | 'statusCallback'>): Promise<Conference> {
    const { conference, created } = await this.#repo.openOrCreate({
      sid: newSid('CF'), accountId, friendlyName, record: opts.record, maxParticipants: opts.maxParticipants,
      statusCallback: opts.statusCallback?.url ?? null, statusCallbackMethod: opts.statusCallback?.method ?? 'POST',
      statusCallbackEvents: opts.statusCallback?.events ?? [],
    });
    if (created) this.#checkEmptyLater();
    if (!created && opts.statusCallback && await this.#repo.adoptStatusCallback(conference.sid, opts.statusCallback.url, opts.statusCallback.method)) {
      return (await this.#repo.get(conference.sid))!;
    }
    return conference;
  }

  /**
   * Ends what earlier runs left empty (a process that died between creating a room and adding to it), and acts on
   * the starts and ends other control planes signal for rooms this one has members in.
   */
  start(): void {
    void this.#endEmpty();
    this.#unsubscribe = this.services.store.signals.subscribe('conference', (message) => void this.#changedElsewhere(message));
  }

  stop(): void {
    this.#unsubscribe?.();
    for (const handle of this.#emptyChecks) this.services.clock.clearTimeout(handle);
    this.#emptyChecks.clear();
  }

  #checkEmptyLater(): void {
    const handle = this.services.clock.setTimeout(() => {
      this.#emptyChecks.delete(handle);
      void this.#endEmpty();
    }, EMPTY_CONFERENCE_WAIT_MS + 1);
    this.#emptyChecks.add(handle);
  }

  /** Every open conference that has had nobody connecting or in it for its wait window ends (conference-end callback). */
  async #endEmpty(): Promise<void> {
    const before = new Date(this.services.clock.now() - EMPTY_CONFERENCE_WAIT_MS).toISOString();
    for (const sid of await this.#repo.emptySince(before)) await this.end(sid, 'no-participant-within-wait');
  }

  /** <Dial><Conference>: the caller is in the conference until it leaves, is removed, or the conference ends. */
  async joinByMarkup(session: CallSession, join: MarkupJoin): Promise<JoinOutcome> {
    const conf = await this.openByName(session.accountId, join.friendlyName, join);
    return this.enter(session, conf.sid, join);
  }

  /** A participant row in `connecting` for a call being placed; `cancel` withdraws the call while it rings. */
  expect(conf: Conference, callSid: string, opts: Omit<JoinOptions, 'waitUrl' | 'coach'>, cancel: AbortController): Promise<Participant> {
    this.#room(conf.sid).ringing.set(callSid, cancel);
    return this.#repo.addParticipant({
      conferenceSid: conf.sid, callSid, accountId: conf.accountId, muted: opts.muted,
      startConferenceOnEnter: opts.startConferenceOnEnter, endConferenceOnExit: opts.endConferenceOnExit, statusCallback: null,
    });
  }

  /** A placed participant's call is over without (or after) joining: its row is closed and the room re-judged. */
  async placementSettled(conferenceSid: string, callSid: string): Promise<void> {
    this.#rooms.get(conferenceSid)?.ringing.delete(callSid);
    if (await this.#repo.setParticipantStatus(conferenceSid, callSid, 'completed')) await this.#afterLeave(conferenceSid, callSid);
  }

  /** Joins an answered call to the room and holds it there until it leaves. */
  async enter(session: CallSession, conferenceSid: string, opts: JoinOptions): Promise<JoinOutcome> {
    const repo = this.#repo;
    const out = (status: JoinOutcome['status']): JoinOutcome => ({ status, conferenceSid });
    this.#rooms.get(conferenceSid)?.ringing.delete(session.sid);
    const current = await repo.get(conferenceSid);
    if (current?.status === 'completed') {
      await repo.setParticipantStatus(conferenceSid, session.sid, 'completed');
      return out('ended');
    }
    let p = await repo.participant(conferenceSid, session.sid);
    if (!p) {
      const conf = current!;
      const added = await repo.addParticipantIfRoom({
        conferenceSid, callSid: session.sid, accountId: session.accountId, muted: opts.muted,
        startConferenceOnEnter: opts.startConferenceOnEnter, endConferenceOnExit: opts.endConferenceOnExit, statusCallback: null,
      }, conf.maxParticipants);
      if (!added) {
        session.timeline('conference-full', { conference_sid: conferenceSid, max_participants: conf.maxParticipants });
        return out('full');
      }
      p = added;
    }
    const leg = session.leg ?? await session.answer();
    // A coach joins muted and is unmuted once coaching is in place: joined unmuted and coached after, the whole
    // room would hear its first moments (as a whispering supervisor did, src/acd/service.ts monitor).
    const coaches = opts.coach !== undefined || (p.coaching && p.callSidToCoach !== null);
    let member: ConferenceMember;
    try {
      // One room for the conference whichever control plane each member's call is on (docs/cluster.md).
      const place = (proposed: string, unreachable: string | null) => repo.placeRoom(conferenceSid, proposed, unreachable);
      member = await leg.joinConference(conferenceSid, { muted: p.muted || coaches, place });
    } catch (err) {
      session.timeline('conference-join-failed', { conference_sid: conferenceSid, reason: (err as Error).message });
      await this.placementSettled(conferenceSid, session.sid);
      return out('failed');
    }
    let leaveStored!: () => void;
    const stored = new Promise<void>((resolve) => { leaveStored = resolve; });
    const live: LiveMember = { callSid: session.sid, session, leg, member, waiting: false, holding: null, coaching: null, stored };
    this.#room(conferenceSid).members.set(session.sid, live);
    await this.#change(conferenceSid, 'participant-join', (tx) => repo.setParticipantStatus(conferenceSid, session.sid, 'in-progress', tx), session.sid);
    session.timeline('conference-joined', { conference_sid: conferenceSid, muted: p.muted });
    const beep = opts.beep ?? 'true';
    if (beep === 'true' || beep === 'onEnter') void live.member.announce(this.beep).catch(() => undefined);

    const conf = (await repo.get(conferenceSid))!;
    if (conf.status === 'init' && p.startConferenceOnEnter) await this.#start(conferenceSid, session);
    else if (conf.status === 'init') {
      live.waiting = true;
      live.holding = await this.services.holdAudio.hold(session, member, opts.waitUrl ?? null, holdOptions(conferenceSid));
      // A start made meanwhile (here, or signalled by another node) found no wait audio to stop yet: stopped now.
      if ((await repo.get(conferenceSid))?.status !== 'init') {
        live.waiting = true;
        await this.#startWaiting(conferenceSid);
      }
    }
    if (p.hold) await this.#hold(conferenceSid, live, p.holdUrl);
    if (opts.coach) await this.updateParticipant(conferenceSid, session.sid, { coaching: true, callSidToCoach: opts.coach });
    await this.#applyCoaching(conferenceSid);
    if (coaches && !p.muted) await member.setMuted(false);

    await Promise.race([member.left, leg.ended, ...(opts.signal ? [whenAborted(opts.signal)] : [])]);
    if (opts.signal?.aborted && !leg.isEnded) await member.leave();
    this.#rooms.get(conferenceSid)?.members.delete(session.sid);
    await live.holding?.stop();
    session.timeline('conference-left', { conference_sid: conferenceSid });
    const remaining = [...(this.#rooms.get(conferenceSid)?.members.values() ?? [])][0];
    if (remaining && (beep === 'true' || beep === 'onExit')) void remaining.member.announce(this.beep).catch(() => undefined);
    try {
      if (await this.#change(conferenceSid, 'participant-leave', (tx) => repo.setParticipantStatus(conferenceSid, session.sid, 'completed', tx), session.sid)) {
        await this.#afterLeave(conferenceSid, session.sid);
      }
    } finally {
      leaveStored();
    }
    return out('completed');
  }

  /** Applies API changes to a participant: stored, applied to its leg if it is in the room, and announced. */
  async updateParticipant(conferenceSid: string, callSid: string, changes: ParticipantChanges, holdMedia?: HoldSource | null): Promise<Participant> {
    const { before, after } = (await this.#repo.updateParticipant(conferenceSid, callSid, changes))!;
    const live = this.#rooms.get(conferenceSid)?.members.get(callSid);
    const muteChanged = changes.muted !== undefined && changes.muted !== before.muted;
    const holdChanged = changes.hold !== undefined && changes.hold !== before.hold;
    if (live) {
      if (holdChanged && changes.hold) await this.#holdWith(conferenceSid, live, holdMedia ?? null);
      else if (holdChanged) await this.#unhold(live);
      else if (changes.hold && holdMedia !== undefined) await this.#holdWith(conferenceSid, live, holdMedia);
      if (muteChanged && !live.waiting && !(changes.hold ?? before.hold)) await live.member.setMuted(changes.muted!);
      if (changes.coaching !== undefined || changes.callSidToCoach !== undefined) await this.#applyCoaching(conferenceSid);
    } else if (holdMedia?.kind === 'audio') holdMedia.lease.release();
    if (muteChanged) await this.#change(conferenceSid, 'participant-mute', async () => true, callSid);
    if (holdChanged) await this.#change(conferenceSid, 'participant-hold', async () => true, callSid);
    return after;
  }

  /** Disconnects a participant's leg (ringing: the call is withdrawn). The conference goes on. */
  async removeParticipant(conferenceSid: string, callSid: string): Promise<void> {
    const room = this.#rooms.get(conferenceSid);
    room?.ringing.get(callSid)?.abort();
    const live = room?.members.get(callSid);
    if (live) await live.session.hangup('conference-participant-removed');
  }

  /** Whether this process carries a member in the room (an announcement plays through one). */
  hasMembersHere(conferenceSid: string): boolean { return (this.#rooms.get(conferenceSid)?.members.size ?? 0) > 0; }

  /** Plays audio or a document once to everyone in the room (an announcement), then the conference resumes. */
  announce(conferenceSid: string, source: HoldSource): void {
    const members = [...(this.#rooms.get(conferenceSid)?.members.values() ?? [])];
    if (members.length === 0) {
      if (source.kind === 'audio') source.lease.release();
      return;
    }
    void this.services.holdAudio.announce(members[0]!.session, members.map((live) => live.member), source).catch(() => undefined);
  }

  /**
   * What `url` gives (audio, or a hold document), asked for as a call in the room: `callSid`'s when it is there, else
   * the first member's. Null when nobody is in the room: a hold starts with the participant's join, and fetches then.
   */
  async holdSource(conferenceSid: string, url: string, callSid?: string): Promise<HoldSourceResult | null> {
    const members = this.#rooms.get(conferenceSid)?.members;
    const live = (callSid ? members?.get(callSid) : undefined) ?? [...(members?.values() ?? [])][0];
    return live ? this.services.holdAudio.resolve(live.session, url, holdOptions(conferenceSid)) : null;
  }

  /**
   * Ends the conference once: calls still ringing are withdrawn and every leg in the room is hung up by its own
   * session (a BYE each, hangup cause conference-ended); what else is in the engine's room is ended there.
   */
  async end(conferenceSid: string, reason: EndReason): Promise<boolean> {
    const ended = await this.#change(conferenceSid, 'conference-end', (tx) => this.#repo.markCompleted(conferenceSid, reason, tx));
    if (ended) await this.#tellOthers(conferenceSid, 'ended');
    await this.#endHere(conferenceSid);
    return ended;
  }

  /** What an ended conference had in this process: calls ringing into it withdrawn, members hung up, its recording closed. */
  async #endHere(conferenceSid: string): Promise<void> {
    const room = this.#rooms.get(conferenceSid);
    if (room) {
      this.#rooms.delete(conferenceSid);
      for (const cancel of room.ringing.values()) cancel.abort();
      await this.#stopRecording(room);
      const members = [...room.members.values()];
      await Promise.all(members.map((live) => live.session.hangup('conference-ended')));
      // Answered once every participant reads completed: a list asked right after the end shows no one still in it.
      await settledWithin(Promise.all(members.map((live) => live.stored)), LEAVES_STORED_MS);
    }
  }

  /** Other control planes with members in the room act on its start or end (signals.ts); sent once the change is stored. */
  async #tellOthers(conferenceSid: string, change: RoomChange): Promise<void> {
    await this.services.store.signals.send(this.services.store.sql, 'conference', JSON.stringify({ sid: conferenceSid, change }))
      .catch(() => undefined);
  }

  async #changedElsewhere(message: string): Promise<void> {
    let signal: { sid?: unknown; change?: unknown };
    try { signal = JSON.parse(message) as typeof signal; } catch { return; }
    if (typeof signal.sid !== 'string' || !this.#rooms.has(signal.sid)) return;
    if (signal.change === 'started') await this.#startWaiting(signal.sid);
    else if (signal.change === 'ended') await this.#endHere(signal.sid);
  }

  /**
   * A call that ended with a dead control plane leaves its conference (participant-leave), and a room left with
   * nobody connecting or in it completes (conference-end, reason platform-restart): the room died with its
   * process, so nothing runs in the engine to hang up. Call inside the transaction (`tx`) that finishes the call.
   */
  async settleLostCall(callSid: string, tx: SqlQueries): Promise<void> {
    for (const p of await this.#repo.participationsOfCall(callSid, tx)) {
      const left = await this.#change(p.conferenceSid, 'participant-leave', (q) => this.#repo.setParticipantStatus(p.conferenceSid, callSid, 'completed', q), callSid, tx);
      if (left && (await this.#repo.participants(p.conferenceSid, { openOnly: true }, tx)).length === 0) {
        await this.#change(p.conferenceSid, 'conference-end', (q) => this.#repo.markCompleted(p.conferenceSid, 'platform-restart', q), undefined, tx);
      }
    }
  }

  #room(sid: string): LiveRoom {
    let room = this.#rooms.get(sid);
    if (!room) this.#rooms.set(sid, room = { members: new Map(), ringing: new Map(), recording: null });
    return room;
  }

  async #start(conferenceSid: string, by: CallSession): Promise<void> {
    if (!await this.#change(conferenceSid, 'conference-start', (tx) => this.#repo.markStarted(conferenceSid, tx), by.sid)) return;
    if ((await this.#repo.get(conferenceSid))!.record) await this.#startRecording(conferenceSid, by);
    await this.#tellOthers(conferenceSid, 'started');
    await this.#startWaiting(conferenceSid);
  }

  /** Members of a conference that has started stop waiting: their wait audio ends and they hear the room. */
  async #startWaiting(conferenceSid: string): Promise<void> {
    for (const live of this.#rooms.get(conferenceSid)?.members.values() ?? []) {
      if (!live.waiting) continue;
      live.waiting = false;
      live.session.timeline('conference-started', { conference_sid: conferenceSid });
      const p = await this.#repo.participant(conferenceSid, live.callSid);
      if (p?.hold) continue;
      await live.holding?.stop();
      live.holding = null;
      await live.member.unhold();
    }
  }

  /** The room's mix, recorded from the start into a recording resource listed under the conference. */
  async #startRecording(conferenceSid: string, by: CallSession): Promise<void> {
    const room = this.#rooms.get(conferenceSid);
    const live = room?.members.get(by.sid);
    if (!room || !live) return;
    room.recording = await startRoomRecording(live.member, by, conferenceSid, this.services);
  }

  /** Finishes the room's recording: through a member still in the room, else the room ended and closed the file. */
  async #stopRecording(room: LiveRoom): Promise<void> {
    const rec = room.recording;
    if (!rec) return;
    room.recording = null;
    await stopRoomRecording(rec, [...room.members.values()][0]?.member, this.services);
  }

  async #afterLeave(conferenceSid: string, callSid: string): Promise<void> {
    const p = await this.#repo.participant(conferenceSid, callSid);
    if (p?.endConferenceOnExit && p.status === 'completed' && (await this.#repo.get(conferenceSid))?.status !== 'completed') {
      await this.end(conferenceSid, 'participant-with-end-conference-on-exit-left');
    } else if ((await this.#repo.participants(conferenceSid, { openOnly: true })).length === 0) {
      await this.end(conferenceSid, 'last-participant-left');
    }
  }

  async #hold(conferenceSid: string, live: LiveMember, holdUrl: string | null): Promise<void> {
    await live.holding?.stop();
    live.holding = await this.services.holdAudio.hold(live.session, live.member, holdUrl, holdOptions(conferenceSid));
  }

  async #holdWith(conferenceSid: string, live: LiveMember, source: HoldSource | null): Promise<void> {
    await live.holding?.stop();
    live.holding = this.services.holdAudio.start(live.session, live.member, source, holdOptions(conferenceSid));
  }

  async #unhold(live: LiveMember): Promise<void> {
    await live.holding?.stop();
    live.holding = null;
    if (live.waiting) await live.member.hold(null);
    else await live.member.unhold();
  }

  /**
   * Coaching is a relation between a coach and every other member, so coaches are re-applied whenever someone
   * joins (the newcomer must not hear them either) or their settings change; nobody else is touched.
   */
  async #applyCoaching(conferenceSid: string): Promise<void> {
    const room = this.#rooms.get(conferenceSid);
    if (!room) return;
    for (const live of room.members.values()) {
      const p = await this.#repo.participant(conferenceSid, live.callSid);
      const coached = p?.coaching && p.callSidToCoach ? p.callSidToCoach : null;
      if (coached === null && live.coaching === null) continue;
      await live.member.coach(coached ? room.members.get(coached)?.member ?? null : null);
      live.coaching = coached;
    }
  }

  /**
   * Runs `change` and, when it changed something, queues the event's callback in the same transaction: its own,
   * or `outer` when the caller's transaction holds the change.
   */
  #change(conferenceSid: string, event: ConferenceEvent, change: (tx: SqlQueries) => Promise<boolean>, callSid?: string, outer?: SqlQueries): Promise<boolean> {
    const { store, clock } = this.services;
    const body = async (tx: SqlQueries) => {
      if (!await change(tx)) return false;
      const conf = (await this.#repo.get(conferenceSid, tx))!;
      const p = callSid ? await this.#repo.participant(conferenceSid, callSid, tx) : undefined;
      await queueConferenceCallback(this.#repo, this.callbacks, conf, event, clock.now(), p, tx);
      return true;
    };
    return outer ? body(outer) : store.sql.transaction(body);
  }
}
