import type { CallSession } from './session.js';

export type SessionListener = (session: CallSession, engineCallId: string | null) => void;
export type TimelineListener = (callSid: string, kind: string, detail: Record<string, unknown>) => void;

/**
 * Live observation of call flows (simulator, dashboard test calls, recording control) without polling the
 * database: which sessions are up, and their timelines as they are written.
 */
export class CallWatch {
  readonly #live = new Map<string, CallSession>();
  readonly #sessions = new Set<SessionListener>();
  readonly #timeline = new Set<TimelineListener>();
  /** Sessions' ends being stored (final status, hangup event, the timeline entries before them). */
  readonly #finishing = new Set<Promise<unknown>>();

  onSession(listener: SessionListener): () => void {
    this.#sessions.add(listener);
    return () => this.#sessions.delete(listener);
  }

  onTimeline(listener: TimelineListener): () => void {
    this.#timeline.add(listener);
    return () => this.#timeline.delete(listener);
  }

  /** The session of a call still in progress, if this process runs it. */
  live(callSid: string): CallSession | undefined { return this.#live.get(callSid); }

  sessionStarted(session: CallSession, engineCallId: string | null): void {
    this.#live.set(session.sid, session);
    for (const l of this.#sessions) l(session, engineCallId);
  }

  sessionEnded(session: CallSession): void { this.#live.delete(session.sid); }

  /** A session's end is being stored: finished() waits for it. */
  finishing(done: Promise<unknown>): void {
    this.#finishing.add(done);
    const forget = () => { this.#finishing.delete(done); };
    done.then(forget, forget);
  }

  /** Resolves once every session end under way is stored. */
  async finished(): Promise<void> {
    while (this.#finishing.size > 0) await Promise.allSettled([...this.#finishing]);
  }

  timeline(callSid: string, kind: string, detail: Record<string, unknown>): void {
    for (const l of this.#timeline) l(callSid, kind, detail);
  }
}
