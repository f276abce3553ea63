import type { CallSession } from './session.js';

export type SessionListener = (session: CallSession, engineCallId: string | null) => void;
export type TimelineListener = (callSid: string, kind: string, detail: Record<string, unknown>) => void;

/** Live observation of call flows (simulator, dashboard test calls) without polling the database. */
export class CallWatch {
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

  sessionStarted(session: CallSession, engineCallId: string | null): void {
    for (const l of this.#sessions) l(session, engineCallId);
  }

  timeline(callSid: string, kind: string, detail: Record<string, unknown>): void {
    for (const l of this.#timeline) l(callSid, kind, detail);
  }
}
