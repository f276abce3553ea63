// What joining a conference asks for (from markup or the API), how a join ends, and why a conference ends.
export interface JoinOptions {
  muted: boolean;
  startConferenceOnEnter: boolean;
  endConferenceOnExit: boolean;
  /** Audio played in a loop to this participant until the conference starts. */
  waitUrl?: string;
  /** Call sid of a participant this one coaches (heard only by them). */
  coach?: string;
  /** Twilio's beep: a tone to the room when this participant enters and/or leaves (default both). */
  beep?: Beep;
  /** Aborted when a redirect replaces the participant's document: it leaves the room, its call goes on. */
  signal?: AbortSignal;
}

export type Beep = 'true' | 'false' | 'onEnter' | 'onExit';

export interface MarkupJoin extends JoinOptions {
  friendlyName: string;
  maxParticipants: number;
  record: boolean;
  statusCallback?: { url: string; method: 'GET' | 'POST'; events: string[] };
}

export type JoinOutcome = { status: 'completed' | 'full' | 'failed' | 'ended'; conferenceSid: string };

/** Twilio's reasons, as the conference-end callback and the resource give them. */
export type EndReason = 'conference-ended-via-api' | 'participant-with-end-conference-on-exit-left' | 'last-participant-left'
  /** Ringbase's own: the control plane running the room died and crash reconciliation closed it. */
  | 'platform-restart'
  /** Ringbase's own: nobody was connecting to or in the conference for its wait window after it was created. */
  | 'no-participant-within-wait';
