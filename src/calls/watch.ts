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

  timeline(callSid: string, kind: string, detail: Record<string, unknown>): void {
    for (const l of this.#timeline) l(callSid, kind, detail);
  }
}
