import type { Logger } from 'pino';
import path from 'node:path';
import { ensurePrivateDir, makePrivate } from '../private-files.js';
import { wavFileAudio, writeWav } from '../media/wav.js';
import type { CallLeg, CallRecording, HangupInfo, IncomingCall, RecordingTracks } from '../engine/port.js';
import type { CallRecord, CallStatus } from '../store/calls.js';
import type { RecordingRecord, RecordingSource } from '../store/recordings.js';
import { newSid } from '../crypto/tokens.js';
import type { CallServices } from './services.js';
import { sendRecordingCallback } from './recording-callback.js';
import { LiveDocument, type NextDocument } from './live-document.js';

/** `record` is the row as last written by this session (it is replaced when the recording is finalized). */
export interface ActiveRecording { record: RecordingRecord; control: CallRecording; immutable: boolean }

type FinalHook = (call: CallRecord) => Promise<void> | void;

/**
 * One call from arrival to its final status. It owns the leg: answering it once, ending it, stopping its
 * recordings, and writing the final state exactly once whichever way the call ends.
 */
export class CallSession {
  readonly log: Logger;
  readonly recordings: ActiveRecording[] = [];
  /** The markup running on the call, which a REST client's redirect replaces. */
  readonly document = new LiveDocument();
  #leg: CallLeg | undefined;
  #answering: Promise<CallLeg> | undefined;
  #rejectedAs: CallStatus | undefined;
  #finalCause: string | undefined;
  #finished: Promise<CallRecord> | undefined;
  readonly #finalHooks: FinalHook[] = [];
  readonly #answerHooks: Array<() => Promise<void>> = [];
  /** Each recording is finalized once (an API stop and the call's end can race): recording sid → its outcome. */
  readonly #stops = new Map<string, Promise<RecordingRecord>>();
  #timelineWrites: Promise<void> = Promise.resolve();
  /** Aborted when a REST client ends the call before it was answered: an outbound call being placed is withdrawn. */
  readonly #withdrawal = new AbortController();
  #settle!: (call: CallRecord) => void;
  /** The call's final state, once stored. */
  readonly finalState = new Promise<CallRecord>((resolve) => { this.#settle = resolve; });

  constructor(
    readonly services: CallServices,
    public call: CallRecord,
    private readonly incoming: IncomingCall | undefined,
    leg?: CallLeg,
  ) {
    this.log = services.log.child({ callSid: call.sid });
    if (leg) this.#adopt(leg);
    void incoming?.ended.then((info) => { if (!this.#leg) void this.finish(info); });
    services.watch.sessionStarted(this, incoming?.id ?? leg?.id ?? null);
  }

  get sid(): string { return this.call.sid; }
  get accountId(): number { return this.call.accountId; }
  get leg(): CallLeg | undefined { return this.#leg; }
  get ended(): boolean { return this.#finished !== undefined || (this.#leg?.isEnded ?? false); }

  /**
   * Notes `kind` on the call's timeline: shown to watchers at once, then stored in the order noted, with the other
   * calls' entries of this event-loop turn (CallRepo.noteTimeline). Watchers must not wait for the store: the
   * simulator interleaves these entries with the caller's side as they happen, and on PostgreSQL a write is a round
   * trip the call does not wait for. Never rejects: a lost entry is logged, the call goes on. The call's end waits
   * for every entry.
   */
  timeline(kind: string, detail: Record<string, unknown>): Promise<void> {
    this.services.watch.timeline(this.sid, kind, detail);
    const stored = this.services.store.calls.noteTimeline(this.sid, kind, detail)
      .catch((err: unknown) => this.log.warn({ err, kind }, 'timeline entry not stored'));
    this.#timelineWrites = this.#timelineWrites.then(() => stored);
    return this.#timelineWrites;
  }

  /** Resolves once every timeline entry noted so far is stored. */
  timelineStored(): Promise<void> { return this.#timelineWrites; }

  onFinal(hook: FinalHook): void { this.#finalHooks.push(hook); }

  /** Runs right after the answer, before any verb uses the leg (recording policy "from answer"). */
  onAnswered(hook: () => Promise<void>): void { this.#answerHooks.push(hook); }

  /** While the flow fetches markup that will likely answer: lets the engine get the answer's media ready. */
  prepareAnswer(): void {
    if (!this.#leg && !this.#answering) this.incoming?.prepareAnswer();
  }

  /** The inbound call while nothing has answered it or begun to: what early media plays on (<Dial answerOnBridge>). */
  get unanswered(): IncomingCall | null {
    return this.#leg || this.#answering || this.ended ? null : this.incoming ?? null;
  }

  /** Answers once; concurrent callers share the same answer. */
  answer(): Promise<CallLeg> {
    if (this.#leg) return Promise.resolve(this.#leg);
    if (!this.incoming) throw new Error('no incoming call to answer');
    this.#answering ??= this.incoming.answer().then(async (leg) => {
      this.#adopt(leg);
      await this.#markAnswered();
      for (const hook of this.#answerHooks) await hook().catch((err: unknown) => this.log.warn({ err }, 'answer hook failed'));
      return leg;
    });
    return this.#answering;
  }

  async reject(reason: 'busy' | 'rejected' | 'unavailable', status: CallStatus, cause: string): Promise<void> {
    this.#rejectedAs = status;
    this.#finalCause = cause;
    this.timeline('rejected', { reason, cause });
    if (this.#leg) await this.#leg.hangup();
    else await this.incoming?.reject(reason);
    await this.finish({ cause: reason === 'busy' ? 'busy' : 'rejected', by: 'local' });
  }

  /** Aborted once a REST client withdraws the call while it is being placed (endByRequest). */
  get withdrawn(): AbortSignal { return this.#withdrawal.signal; }

  /**
   * Ends the call at a REST client's request (POST /api/calls/{sid}): an answered call is hung up (BYE), an
   * inbound call still ringing is refused, an outbound call still being placed is withdrawn (CANCEL). The call's
   * running markup stops with its leg, as when the caller hangs up. finalState says how it ended.
   */
  async endByRequest(cause: 'api-hangup' | 'api-cancel'): Promise<void> {
    this.#finalCause ??= cause;
    void this.timeline('ended-by-request', { cause });
    if (!this.#leg && this.#answering) await this.#answering.catch(() => undefined);
    if (this.#leg) await this.#leg.hangup();
    else if (this.incoming) await this.reject('unavailable', 'canceled', cause);
    else this.#withdrawal.abort();
  }

  /**
   * Replaces the running document at a REST client's request (POST /api/calls/{sid} with url or markup) or at a
   * transfer (`kind` names which on the timeline): the verb under way stops (its media at once) and `next` runs in
   * its place. Asked only while markup runs.
   */
  async redirect(next: NextDocument, source: Record<string, unknown>, kind = 'redirected-by-request'): Promise<void> {
    void this.timeline(kind, source);
    this.document.replace(next);
    await this.#leg?.stopMedia();
  }

  async hangup(cause = 'hangup'): Promise<void> {
    this.#finalCause ??= cause;
    if (this.#leg) await this.#leg.hangup();
    else if (this.incoming) await this.reject('unavailable', 'failed', cause);
    else await this.finish({ cause: 'failed', by: 'local' });
  }

  /** Starts a recording of the call (policy, API or Dial record=...) and keeps it until the call ends. */
  async startRecording(opts: { source: RecordingSource; tracks: RecordingTracks; dualChannel: boolean; callbackUrl: string | null; immutable: boolean; early?: boolean }): Promise<ActiveRecording> {
    const sid = newSid('RE');
    const file = this.recordingFile(sid);
    const spec = { file, tracks: opts.tracks, dualChannel: opts.dualChannel };
    const control = opts.early && !this.#leg && this.incoming
      ? await this.incoming.startEarlyRecording(spec)
      : await (this.#leg ?? (await this.answer())).startCallRecording(spec);
    const record = await this.services.store.recordings.create({
      sid, accountId: this.accountId, callSid: this.sid, source: opts.source, tracks: opts.tracks,
      channels: control.channels, file, callbackUrl: opts.callbackUrl, immutable: opts.immutable,
    });
    const active = { record, control, immutable: opts.immutable };
    this.recordings.push(active);
    this.timeline('recording-started', { recording_sid: sid, tracks: opts.tracks, channels: control.channels });
    return active;
  }

  /**
   * Stops and finalizes a recording, once: later calls get the same result. Its duration is the audio the file
   * holds (what the WAV serves), its `completed_at` the time it stopped. A recording that caught no audio is
   * `absent` with duration 0 and an empty WAV (FreeSWITCH deletes a file it wrote nothing to).
   */
  stopRecording(active: ActiveRecording): Promise<RecordingRecord> {
    const { sid } = active.record;
    let stopping = this.#stops.get(sid);
    if (!stopping) {
      stopping = this.#finalizeRecording(active);
      this.#stops.set(sid, stopping);
      // An engine that refused the stop may take it again.
      stopping.catch(() => this.#stops.delete(sid));
    }
    return stopping;
  }

  async #finalizeRecording(active: ActiveRecording): Promise<RecordingRecord> {
    await active.control.stop();
    const { file } = active.record;
    const durationMs = wavFileAudio(file)?.durationMs ?? 0;
    if (durationMs === 0) writeWav(file, { sampleRate: 8000, channels: Array.from({ length: active.control.channels }, () => new Float32Array(0)) });
    // The engine wrote it (FreeSWITCH with its own umask): private from here on.
    makePrivate(file);
    const done = await this.services.store.recordings.complete(active.record.sid, durationMs, durationMs > 0 ? 'completed' : 'absent');
    active.record = done;
    this.timeline('recording-completed', { recording_sid: done.sid, status: done.status, duration_ms: durationMs });
    await sendRecordingCallback(this, done);
    return done;
  }

  recordingFile(sid: string): string {
    const dir = path.join(this.services.recordingsDir, String(this.accountId));
    ensurePrivateDir(this.services.recordingsDir);
    ensurePrivateDir(dir);
    return path.join(dir, `${sid}.wav`);
  }

  /** Final state once, whoever notices the end first (leg hangup, pre-answer cancel, reject). */
  finish(info: HangupInfo): Promise<CallRecord> {
    if (!this.#finished) {
      this.#finished = this.#finalize(info);
      // Often started by the leg's end, outside any call flow: shutdown must still wait for it before the store closes.
      this.services.watch.finishing(this.#finished);
    }
    return this.#finished;
  }

  async #finalize(info: HangupInfo): Promise<CallRecord> {
    for (const active of this.recordings) {
      await this.stopRecording(active).catch((err: unknown) => this.log.warn({ err }, 'recording could not be finalized'));
    }
    const status = this.#statusFor(info);
    const cause = this.#finalCause ?? info.cause;
    // The final state and its hangup event commit together: the outbox can never miss or invent an ending.
    await this.services.store.sql.transaction(async (tx) => {
      this.call = await this.services.store.calls.finish(this.sid, status, cause, tx);
      await this.services.events.emit({
        type: 'hangup', accountId: this.accountId, callSid: this.sid,
        data: { from: this.call.from, to: this.call.to, direction: this.call.direction, duration: this.call.duration, disposition: status, cause },
      }, tx);
    });
    this.services.watch.sessionEnded(this);
    await this.timeline('ended', { status, cause, by: info.by });
    for (const hook of this.#finalHooks) {
      await Promise.resolve(hook(this.call)).catch((err: unknown) => this.log.warn({ err }, 'final hook failed'));
    }
    this.#settle(this.call);
    return this.call;
  }

  #statusFor(info: HangupInfo): CallStatus {
    if (this.#rejectedAs) return this.#rejectedAs;
    if (this.call.answeredAt || this.#leg) return 'completed';
    if (info.cause === 'caller-hangup') return 'canceled';
    if (info.cause === 'busy' || info.cause === 'rejected') return 'busy';
    if (info.cause === 'canceled') return 'canceled';
    if (info.cause === 'no-answer') return 'no-answer';
    return 'failed';
  }

  /** Takes over a leg answered elsewhere (an outbound call the engine placed) as this call's leg. */
  async adopt(leg: CallLeg): Promise<void> {
    this.#adopt(leg);
    await this.#markAnswered();
  }

  /** Answered state and the call-start event commit together (see the transactional outbox in src/events). */
  async #markAnswered(): Promise<void> {
    await this.services.store.sql.transaction(async (tx) => {
      await this.services.store.calls.markAnswered(this.sid, tx);
      await this.services.events.emit({ type: 'call-start', accountId: this.accountId, callSid: this.sid, data: { from: this.call.from, to: this.call.to, direction: this.call.direction } }, tx);
    });
    void this.timeline('answered', {});
  }

  #adopt(leg: CallLeg): void {
    this.#leg = leg;
    if (leg.orphanRef !== null) {
      this.services.store.calls.setOrphanRef(this.sid, leg.orphanRef).catch((err: unknown) => this.log.warn({ err }, 'orphan reference not stored'));
    }
    void leg.ended.then((info) => this.finish(info));
  }
}
